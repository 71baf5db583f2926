//! Packets about the device rather than events on tracks: battery
//! counters and power rails (counter tracks with the model's power names
//! and SI units), system_info (session properties), the process tree and
//! the process and thread descriptors.

use super::{bad, text, Importer};
use crate::proto;
use crate::repair;
use crate::wire::WireResult;
use prost::Message;
use tracekit_model::{CounterKind, CounterTrack};

impl Importer {
    /// `system_info`: the device, kept as session properties (`kernel`,
    /// `android.build`, `android.sdk`, `android.manufacturer`, `android.soc`,
    /// `perfetto.version`, `cpus`), each once.
    pub(super) fn system_info(&mut self, payload: &[u8]) -> WireResult<()> {
        let i = proto::SystemInfo::decode(payload).map_err(|_| bad(0, "malformed system_info"))?;
        let mut props = Vec::new();
        if let Some(u) = i.utsname {
            let parts: Vec<String> = [u.sysname, u.release, u.machine]
                .into_iter()
                .flatten()
                .map(|p| text(Some(p)))
                .collect();
            props.push(("kernel", parts.join(" ")));
        }
        let texts = [
            ("android.build", i.android_build_fingerprint),
            ("android.manufacturer", i.android_device_manufacturer),
            ("android.soc", i.android_soc_model),
            ("perfetto.version", i.tracing_service_version),
        ];
        for (key, v) in texts {
            if let Some(v) = v {
                props.push((key, text(Some(v))));
            }
        }
        if let Some(v) = i.android_sdk_version {
            props.push(("android.sdk", v.to_string()));
        }
        if let Some(v) = i.num_cpus {
            props.push(("cpus", v.to_string()));
        }
        for (k, v) in props {
            if !v.is_empty() && !self.s.properties.iter().any(|(key, _)| key == k) {
                self.s.properties.push((k.to_owned(), v));
            }
        }
        Ok(())
    }

    pub(super) fn battery(&mut self, ts: Option<u64>, payload: &[u8]) -> WireResult<()> {
        use tracekit_model::power::*;
        let b = proto::BatteryCounters::decode(payload).map_err(|_| bad(0, "malformed battery counters"))?;
        let Some(ts) = ts else {
            self.tally.repair(repair::NO_TIMESTAMP);
            return Ok(());
        };
        let suffix = b
            .name
            .map(|n| text(Some(n)))
            .filter(|n| !n.is_empty())
            .map(|n| format!(" ({n})"))
            .unwrap_or_default();
        let readings = [
            (
                BATTERY_CHARGE,
                Some(MICRO_AMPERE_HOUR),
                CounterKind::Sampled,
                b.charge_counter_uah.map(|v| v as f64),
            ),
            (
                BATTERY_CAPACITY,
                Some("%"),
                CounterKind::Level,
                b.capacity_percent.map(f64::from),
            ),
            (
                BATTERY_CURRENT,
                Some(AMPERE),
                CounterKind::Sampled,
                b.current_ua.map(|v| v as f64 * 1e-6),
            ),
            (
                "battery current (average)",
                Some(AMPERE),
                CounterKind::Sampled,
                b.current_avg_ua.map(|v| v as f64 * 1e-6),
            ),
            (
                BATTERY_ENERGY,
                Some(JOULE),
                CounterKind::Sampled,
                b.energy_counter_uwh.map(|v| v as f64 * 3.6e-3),
            ),
            (
                BATTERY_VOLTAGE,
                Some(VOLT),
                CounterKind::Sampled,
                b.voltage_uv.map(|v| v as f64 * 1e-6),
            ),
        ];
        for (name, unit, kind, value) in readings {
            if let Some(v) = value {
                let name = format!("{name}{suffix}");
                let i = self.counter(&name, || CounterTrack::new(name.clone(), unit).with_kind(kind));
                self.sample(i, ts, v);
            }
        }
        Ok(())
    }

    pub(super) fn power_rails(&mut self, ts: Option<u64>, payload: &[u8]) -> WireResult<()> {
        let p = proto::PowerRails::decode(payload).map_err(|_| bad(0, "malformed power rails"))?;
        for d in p.rail_descriptor {
            let name = text(d.rail_name);
            self.ftrace.rail_names.insert(d.index.unwrap_or(0), name);
        }
        for e in p.energy_data {
            let index = e.index.unwrap_or(0);
            let Some(t) = e.timestamp_ms.map(|ms| ms.saturating_mul(1_000_000)).or(ts) else {
                self.tally.repair(repair::NO_TIMESTAMP);
                continue;
            };
            let rail = self
                .ftrace
                .rail_names
                .get(&index)
                .cloned()
                .unwrap_or_else(|| format!("#{index}"));
            let name = format!("rail {rail} energy");
            let i = self.counter(&name, || {
                CounterTrack::new(name.clone(), Some(tracekit_model::power::JOULE)).with_kind(CounterKind::Cumulative)
            });
            self.sample(i, t, e.energy.unwrap_or(0) as f64 * 1e-6);
        }
        Ok(())
    }

    pub(super) fn process_tree(&mut self, payload: &[u8]) -> WireResult<()> {
        let t = proto::ProcessTree::decode(payload).map_err(|_| bad(0, "malformed process_tree"))?;
        for p in t.processes {
            let name = p.cmdline.into_iter().next().map(|c| text(Some(c))).unwrap_or_default();
            if let Some(pid) = p.pid {
                self.threads.name_process(pid as u32, name);
            }
        }
        for th in t.threads {
            if let Some(tid) = th.tid {
                self.threads
                    .describe(tid as u32, th.tgid.map(|p| p as u32), th.name.map(|n| text(Some(n))));
            }
        }
        Ok(())
    }

    pub(super) fn legacy_descriptor(&mut self, seq_id: u32, number: u32, payload: &[u8]) -> WireResult<()> {
        if number == 43 {
            let p = proto::ProcessDescriptor::decode(payload).map_err(|_| bad(0, "malformed process_descriptor"))?;
            self.describe_process(&p);
        } else {
            let t = proto::ThreadDescriptor::decode(payload).map_err(|_| bad(0, "malformed thread_descriptor"))?;
            if let Some(tid) = self.describe_thread(&t) {
                self.sequences.entry(seq_id).thread = Some(tid);
            }
        }
        Ok(())
    }

    pub(crate) fn describe_process(&mut self, p: &proto::ProcessDescriptor) {
        let name = p
            .process_name
            .clone()
            .or_else(|| p.cmdline.first().cloned())
            .map(|n| text(Some(n)))
            .unwrap_or_default();
        if let Some(pid) = p.pid {
            self.threads.name_process(pid as u32, name);
        }
    }

    /// Notes a thread descriptor; returns its tid.
    pub(crate) fn describe_thread(&mut self, t: &proto::ThreadDescriptor) -> Option<u32> {
        let tid = t.tid? as u32;
        self.threads.describe(
            tid,
            t.pid.map(|p| p as u32),
            t.thread_name.clone().map(|n| text(Some(n))),
        );
        Some(tid)
    }
}
