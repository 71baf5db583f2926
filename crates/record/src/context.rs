//! The context sampler: a process separate from the traced program that
//! reads CPU, memory, network, battery, screen, thermal and CPU-frequency
//! state and power sources ([`crate::power`]) from `/proc` and `/sys`
//! (roots configurable, so tests use fixture trees) and appends one JSON
//! line per sample to `context.jsonl`. Each sample is timestamped before its
//! source is read (seed 000 §5.6), and samples keep to a fixed schedule
//! (period k starts at start + k·period), so a slow read does not make the
//! rest drift. Power samples can also be written to a `trace_marker` file as
//! atrace counters, so on a device with a writable tracefs they land in the
//! kernel's trace buffer on the kernel's clock (seed 002's design, without
//! its kernel patch).

use crate::clock::monotonic_ns;
use crate::power::PowerProbe;
use anyhow::Context as _;
use std::io::Write;
use std::path::{Path, PathBuf};
#[cfg(test)]
use tracekit_recording::context_file::load_samples;
use tracekit_recording::context_file::{SampleLine, SampleValue, SourcesLine};

/// Groups of context sources.
pub const ALL_SOURCES: &[&str] = &[
    "cpu", "memory", "network", "battery", "screen", "thermal", "cpufreq", "power",
];

/// Sampler settings.
#[derive(Debug, Clone)]
pub struct SamplerConfig {
    /// Root standing for `/proc`.
    pub proc_root: PathBuf,
    /// Root standing for `/sys`.
    pub sys_root: PathBuf,
    /// Sampling period.
    pub period: std::time::Duration,
    /// Source groups to read (names from [`ALL_SOURCES`]).
    pub sources: Vec<String>,
    /// Traced process for per-process RSS/PSS and traffic.
    pub pid: Option<u32>,
    /// Also write every power sample as an atrace counter (`C|pid|name|value`)
    /// to this file (a tracefs `trace_marker`).
    pub trace_marker: Option<PathBuf>,
}

struct Reader<'a> {
    cfg: &'a SamplerConfig,
    prev_cpu: Option<(u64, u64)>,
    power: Option<PowerProbe>,
}

fn read_trim(p: &Path) -> Option<String> {
    std::fs::read_to_string(p).ok().map(|s| s.trim().to_owned())
}

fn read_num(p: &Path) -> Option<i64> {
    read_trim(p)?.parse().ok()
}

fn sorted_dir(p: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(p)
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

fn base(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

impl Reader<'_> {
    fn proc(&self, rel: &str) -> PathBuf {
        self.cfg.proc_root.join(rel)
    }

    fn sys(&self, rel: &str) -> PathBuf {
        self.cfg.sys_root.join(rel)
    }

    /// Whether a source group exists on this machine.
    fn present(&mut self, group: &str) -> bool {
        match group {
            "cpu" => self.proc("stat").exists(),
            "memory" => self.proc("meminfo").exists(),
            "network" => self.proc("net/dev").exists(),
            "battery" => sorted_dir(&self.sys("class/power_supply"))
                .iter()
                .any(|p| p.join("capacity").exists() || p.join("voltage_now").exists()),
            "screen" => !sorted_dir(&self.sys("class/backlight")).is_empty(),
            "thermal" => sorted_dir(&self.sys("class/thermal"))
                .iter()
                .any(|p| p.join("temp").exists()),
            "cpufreq" => sorted_dir(&self.sys("devices/system/cpu"))
                .iter()
                .any(|p| p.join("cpufreq/scaling_cur_freq").exists()),
            "power" => {
                let probe = PowerProbe::discover(&self.cfg.sys_root);
                let found = !probe.is_empty();
                self.power = Some(probe);
                found
            }
            _ => false,
        }
    }

    fn sample(&mut self, group: &str, out: &mut Vec<SampleLine>) {
        let t = monotonic_ns();
        let mut put = |label: String, unit: &str, value: SampleValue| {
            out.push(SampleLine {
                mono_ns: t,
                label,
                unit: (!unit.is_empty()).then(|| unit.to_owned()),
                value,
                counter: None,
                wrap: None,
            })
        };
        match group {
            "power" => {
                if let Some(p) = &mut self.power {
                    p.sample(t, out);
                }
            }
            "cpu" => {
                if let Some(line) = read_trim(&self.proc("stat")).and_then(|s| s.lines().next().map(str::to_owned)) {
                    let f: Vec<u64> = line.split_whitespace().skip(1).filter_map(|x| x.parse().ok()).collect();
                    let total: u64 = f.iter().sum();
                    let idle = f.get(3).copied().unwrap_or(0) + f.get(4).copied().unwrap_or(0);
                    if let Some((pt, pi)) = self.prev_cpu {
                        let (dt, di) = (total.saturating_sub(pt), idle.saturating_sub(pi));
                        if dt > 0 {
                            put(
                                "CPU".into(),
                                "%",
                                SampleValue::Double(100.0 * (dt - di.min(dt)) as f64 / dt as f64),
                            );
                        }
                    }
                    self.prev_cpu = Some((total, idle));
                }
            }
            "memory" => {
                let info = read_trim(&self.proc("meminfo")).unwrap_or_default();
                let kb = |key: &str| {
                    info.lines()
                        .find(|l| l.starts_with(key))
                        .and_then(|l| l.split_whitespace().nth(1)?.parse::<i64>().ok())
                };
                if let (Some(total), Some(avail)) = (kb("MemTotal:"), kb("MemAvailable:")) {
                    put("Memory used".into(), "kB", SampleValue::Long(total - avail));
                }
                if let Some(pid) = self.cfg.pid {
                    let roll = read_trim(&self.proc(&format!("{pid}/smaps_rollup"))).unwrap_or_default();
                    for (key, label) in [("Rss:", "Process RSS"), ("Pss:", "Process PSS")] {
                        if let Some(v) = roll
                            .lines()
                            .find(|l| l.starts_with(key))
                            .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
                        {
                            put(label.into(), "kB", SampleValue::Long(v));
                        }
                    }
                }
            }
            "network" => {
                let mut files = vec![("Total", self.proc("net/dev"))];
                if let Some(pid) = self.cfg.pid {
                    files.push(("Process", self.proc(&format!("{pid}/net/dev"))));
                }
                for (who, f) in files {
                    let Some(text) = read_trim(&f) else { continue };
                    let (mut rx, mut tx) = (0i64, 0i64);
                    for l in text.lines().skip(2) {
                        let Some((iface, rest)) = l.split_once(':') else {
                            continue;
                        };
                        if iface.trim() == "lo" {
                            continue;
                        }
                        let v: Vec<i64> = rest.split_whitespace().filter_map(|x| x.parse().ok()).collect();
                        rx += v.first().copied().unwrap_or(0);
                        tx += v.get(8).copied().unwrap_or(0);
                    }
                    put(format!("{who} received traffic"), "B", SampleValue::Long(rx));
                    put(format!("{who} sent traffic"), "B", SampleValue::Long(tx));
                }
            }
            "battery" => {
                for dev in sorted_dir(&self.sys("class/power_supply")) {
                    let n = base(&dev);
                    for (file, label, unit) in [
                        ("voltage_now", "voltage", "uV"),
                        ("current_now", "current", "uA"),
                        ("charge_counter", "charge counter", "uAh"),
                        ("capacity", "capacity", "%"),
                        ("temp", "temperature", "0.1C"),
                    ] {
                        if let Some(v) = read_num(&dev.join(file)) {
                            put(format!("Battery {n} {label}"), unit, SampleValue::Long(v));
                        }
                    }
                    if let Some(s) = read_trim(&dev.join("status")) {
                        put(format!("Battery {n} status"), "", SampleValue::Text(s));
                    }
                }
            }
            "screen" => {
                for dev in sorted_dir(&self.sys("class/backlight")) {
                    if let Some(v) = read_num(&dev.join("brightness")) {
                        put(format!("Backlight {} brightness", base(&dev)), "", SampleValue::Long(v));
                    }
                }
            }
            "thermal" => {
                for z in sorted_dir(&self.sys("class/thermal")) {
                    if let Some(v) = read_num(&z.join("temp")) {
                        put(format!("Thermal {} temperature", base(&z)), "mC", SampleValue::Long(v));
                    }
                }
            }
            "cpufreq" => {
                for c in sorted_dir(&self.sys("devices/system/cpu")) {
                    if let Some(v) = read_num(&c.join("cpufreq/scaling_cur_freq")) {
                        put(format!("{} frequency", base(&c)), "kHz", SampleValue::Long(v));
                    }
                }
            }
            _ => {}
        }
    }
}

/// Runs the sampler until `wait_or_stop` returns true. It is called after
/// each round with the time left until the next round is due (zero when
/// the round overran), and should wait that long unless told to stop.
/// Returns the sources found and absent.
pub fn run_sampler(
    cfg: &SamplerConfig,
    out: &Path,
    mut wait_or_stop: impl FnMut(std::time::Duration) -> bool,
) -> anyhow::Result<SourcesLine> {
    let mut r = Reader {
        cfg,
        prev_cpu: None,
        power: None,
    };
    let (present, absent): (Vec<String>, Vec<String>) = cfg.sources.iter().cloned().partition(|g| r.present(g));
    let file = std::fs::File::create(out).with_context(|| format!("{}: cannot create", out.display()))?;
    let mut w = std::io::BufWriter::new(file);
    let mut marker = match &cfg.trace_marker {
        Some(p) => Some(
            std::fs::OpenOptions::new()
                .append(true)
                .open(p)
                .with_context(|| format!("{}: cannot open the trace marker for writing", p.display()))?,
        ),
        None => None,
    };
    let sources = SourcesLine {
        present: present.clone(),
        absent,
        notes: r.power.as_ref().map(|p| p.notes().to_vec()).unwrap_or_default(),
    };
    writeln!(w, "{}", serde_json::to_string(&sources)?)?;
    let pid = std::process::id();
    let start = monotonic_ns();
    let period = cfg.period.as_nanos().max(1) as u64;
    let mut round = 0u64;
    let mut last_flush = start;
    let mut lines = Vec::new();
    loop {
        for g in &present {
            r.sample(g, &mut lines);
        }
        for l in lines.drain(..) {
            if let (Some(m), Some(_)) = (&mut marker, l.counter) {
                if let Some(text) = crate::power::marker_line(pid, &l) {
                    // One write per event: trace_marker takes each write as one entry.
                    m.write_all(text.as_bytes())?;
                }
            }
            serde_json::to_writer(&mut w, &l)?;
            w.write_all(b"\n")?;
        }
        // A write per round would be most of a 100 Hz sampler's cost: write
        // at most four times a second (a crash loses at most that much).
        let now = monotonic_ns();
        if now >= last_flush + 250_000_000 {
            w.flush()?;
            last_flush = now;
        }
        round += 1;
        let due = start + round * period;
        let now = monotonic_ns();
        if now > due + period {
            // More than a whole round behind: skip the missed rounds.
            round = (now - start) / period;
        }
        let left = std::time::Duration::from_nanos((start + round * period).saturating_sub(now));
        if wait_or_stop(left) {
            break;
        }
    }
    w.flush()?;
    Ok(sources)
}

/// Runs the sampler as the separate process `tracekit record` starts: it
/// stops when its standard input reaches end of file (the recorder closes it).
pub fn run_sampler_until_stdin_closes(cfg: &SamplerConfig, out: &Path) -> anyhow::Result<()> {
    run_sampler(cfg, out, |period| {
        let mut fds = libc::pollfd {
            fd: 0,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: polling our own stdin.
        let n = unsafe { libc::poll(&mut fds, 1, period.as_millis().min(i32::MAX as u128) as i32) };
        n != 0
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracekit_model::{Clocks, ContextValue, Session};

    fn fixture() -> tempdir::Dir {
        let d = tempdir::Dir::new("ctx");
        let w = |rel: &str, text: &str| {
            let p = d.0.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        w("proc/stat", "cpu  100 0 100 800 0 0 0 0 0 0\n");
        w("proc/meminfo", "MemTotal: 1000 kB\nMemAvailable: 400 kB\n");
        w("proc/42/smaps_rollup", "Rss: 77 kB\nPss: 55 kB\n");
        w(
            "proc/net/dev",
            "h1\nh2\n  lo: 5 0 0 0 0 0 0 0 6 0\neth0: 100 0 0 0 0 0 0 0 200 0\n",
        );
        w("sys/class/power_supply/BAT0/voltage_now", "3800000\n");
        w("sys/class/power_supply/BAT0/capacity", "81\n");
        w("sys/class/power_supply/BAT0/status", "Discharging\n");
        w("sys/class/thermal/thermal_zone0/temp", "45000\n");
        d
    }

    mod tempdir {
        pub struct Dir(pub std::path::PathBuf);
        impl Dir {
            pub fn new(tag: &str) -> Dir {
                let p = std::env::temp_dir().join(format!(
                    "tk-{tag}-{}-{:?}",
                    std::process::id(),
                    std::thread::current().id()
                ));
                let _ = std::fs::remove_dir_all(&p);
                std::fs::create_dir_all(&p).unwrap();
                Dir(p)
            }
        }
        impl Drop for Dir {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(&self.0);
            }
        }
    }

    #[test]
    fn samples_fixture_tree_and_reports_absent_sources() {
        let d = fixture();
        let cfg = SamplerConfig {
            proc_root: d.0.join("proc"),
            sys_root: d.0.join("sys"),
            period: std::time::Duration::from_millis(1),
            sources: ALL_SOURCES.iter().map(|s| s.to_string()).collect(),
            pid: Some(42),
            trace_marker: None,
        };
        let out = d.0.join("context.jsonl");
        let mut n = 0;
        let stat = d.0.join("proc/stat");
        let src = run_sampler(&cfg, &out, |_| {
            n += 1;
            std::fs::write(&stat, "cpu  150 0 150 900 0 0 0 0 0 0\n").unwrap();
            n == 2
        })
        .unwrap();
        assert_eq!(src.absent, vec!["screen".to_string(), "cpufreq".to_string()]);
        let mut s = Session::new("t", Clocks::WALL);
        load_samples(&out, 0, &mut s).unwrap();
        let get = |l: &str| s.context_track(l).unwrap_or_else(|| panic!("no {l}"));
        assert_eq!(get("Memory used").samples.get(0), ContextValue::Long(600));
        assert_eq!(get("Process PSS").samples.get(1), ContextValue::Long(55));
        assert_eq!(get("Total received traffic").samples.get(0), ContextValue::Long(100));
        assert_eq!(
            get("Battery BAT0 status").samples.get(0),
            ContextValue::Str("Discharging".into())
        );
        assert_eq!(get("Battery BAT0 capacity").len(), 2);
        assert_eq!(
            get("Thermal thermal_zone0 temperature").samples.get(0),
            ContextValue::Long(45000)
        );
        // CPU needs two readings of /proc/stat: one sample from two passes.
        assert_eq!(get("CPU").len(), 1);
        assert_eq!(get("CPU").samples.get(0), ContextValue::Double(50.0));
        assert!(get("Memory used").times[0] > 0);
        assert!(s
            .properties
            .iter()
            .any(|(k, v)| k == "context-absent" && v == "screen,cpufreq"));
    }
}
