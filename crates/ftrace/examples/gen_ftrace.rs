//! Writes a synthetic atrace capture of about `MB` megabytes for the import
//! benchmark (`scripts/bench/ftrace.sh`): the mix of a busy phone's
//! `sched freq idle gfx view` capture — sched_switch and sched_wakeup on 8
//! CPUs, atrace B/E slices nested up to 8 deep and C counters from 240
//! threads in 24 processes, cpu_frequency, cpu_idle, clock-sync markers and
//! seed 002's power lines every 80 ms — in the line format atrace prints
//! (TGID column, irq flags). Deterministic (SplitMix64).
//!
//!   cargo run --release -p tracekit-ftrace --example gen_ftrace -- OUT [MB]

use std::io::{BufWriter, Write};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const CPUS: usize = 8;
const COMMS: [&str; 12] = [
    "surfaceflinger",
    "RenderThread",
    "Binder:1234_2",
    "ndroid.systemui",
    "kworker/u16:3",
    "HwBinder:702_1",
    "android.bg",
    "InputDispatcher",
    "mali-cmar-backe",
    "Jit thread pool",
    "ksoftirqd/2",
    "composer@2.1-se",
];
const SLICES: [&str; 10] = [
    "Choreographer#doFrame",
    "input",
    "traversal",
    "draw",
    "DrawFrame",
    "queueBuffer",
    "dequeueBuffer",
    "binder transaction",
    "Lock contention on a monitor lock",
    "inflate",
];

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let out = args.next().expect("usage: gen_ftrace OUT [MB]");
    let mb: u64 = args.next().map_or(256, |a| a.parse().expect("MB"));
    let target = mb * 1_000_000;
    let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(&out)?);
    let mut rng = Rng(0x5EED_0002);
    writeln!(
        w,
        "# tracer: nop\n#\n# entries-in-buffer/entries-written: 0/0   #P:{CPUS}\n#"
    )?;
    writeln!(w, "#           TASK-PID    TGID   CPU#  ||||    TIMESTAMP  FUNCTION")?;
    writeln!(w, "#              | |        |      |   ||||       |         |")?;
    let threads: Vec<(u32, u32, &str)> = (0..240u32)
        .map(|i| (1000 + i, 1000 + (i / 10) * 10, COMMS[(i % 12) as usize]))
        .collect();
    let mut running: [Option<usize>; CPUS] = [None; CPUS];
    let mut depth = vec![0u32; threads.len()];
    let mut freq = [300_000u64; CPUS];
    let mut us: u64 = 1_000_000_000; // 1000 s of uptime
    let mut next_power = us;
    let (mut v, mut c, mut e) = (4_380_937i64, 530_056i64, -203_095_456i64);
    writeln!(
        w,
        "           <...>-900   (-----) [000] ...1 {}.{:06}: tracing_mark_write: trace_event_clock_sync: parent_ts={}.{:06}",
        us / 1_000_000,
        us % 1_000_000,
        us / 1_000_000,
        us % 1_000_000 + 17
    )?;
    writeln!(
        w,
        "           <...>-900   (-----) [000] ...1 {}.{:06}: tracing_mark_write: trace_event_clock_sync: realtime_ts=1700000000000",
        us / 1_000_000,
        us % 1_000_000
    )?;
    let mut written: u64 = 0;
    let mut line = String::with_capacity(256);
    while written < target {
        us += 1 + rng.below(12);
        let cpu = rng.below(CPUS as u64) as usize;
        let (secs, frac) = (us / 1_000_000, us % 1_000_000);
        line.clear();
        let roll = rng.below(100);
        use std::fmt::Write as _;
        if us >= next_power {
            next_power = us + 80_000 + rng.below(30_000);
            if rng.below(2) == 0 {
                v += rng.below(3001) as i64 - 1500;
                c += rng.below(20001) as i64 - 10000;
            }
            e += 28_000 + rng.below(300) as i64;
            let _ = write!(
                line,
                "  periodic_power-3003  ( 3003) [{cpu:03}] .... {secs}.{frac:06}: write_power_ringbuffer: v:{v} c:{c} e:{e}"
            );
        } else if roll < 30 {
            let prev = running[cpu];
            let next = if rng.below(8) == 0 {
                None
            } else {
                Some(rng.below(threads.len() as u64) as usize)
            };
            let (ptid, pcomm) = prev.map_or((0, "swapper/0"), |i| (threads[i].0, threads[i].2));
            let (ntid, ncomm) = next.map_or((0, "swapper/0"), |i| (threads[i].0, threads[i].2));
            let (task, tid, tgid) = prev.map_or(("<idle>", 0, 0), |i| (threads[i].2, threads[i].0, threads[i].1));
            let state = ["S", "R", "R+", "D", "S"][rng.below(5) as usize];
            let _ = write!(
                line,
                "{task:>16}-{tid:<5} ({tgid:>5}) [{cpu:03}] d..2 {secs}.{frac:06}: sched_switch: prev_comm={pcomm} prev_pid={ptid} prev_prio=120 prev_state={state} ==> next_comm={ncomm} next_pid={ntid} next_prio=120"
            );
            running[cpu] = next;
        } else if roll < 45 {
            let target = &threads[rng.below(threads.len() as u64) as usize];
            let _ = write!(
                line,
                "          <idle>-0     (-----) [{cpu:03}] dNh4 {secs}.{frac:06}: sched_wakeup: comm={} pid={} prio=120 target_cpu={:03}",
                target.2, target.0, rng.below(CPUS as u64)
            );
        } else if roll < 85 {
            let Some(i) = running[cpu] else { continue };
            let (tid, tgid, comm) = threads[i];
            let payload = if depth[i] > 0 && (depth[i] >= 8 || rng.below(2) == 0) {
                depth[i] -= 1;
                "E".to_string()
            } else {
                depth[i] += 1;
                format!("B|{tgid}|{}", SLICES[rng.below(SLICES.len() as u64) as usize])
            };
            let _ = write!(
                line,
                "{comm:>16}-{tid:<5} ({tgid:>5}) [{cpu:03}] ...1 {secs}.{frac:06}: tracing_mark_write: {payload}"
            );
        } else if roll < 90 {
            let (tid, tgid, comm) = threads[rng.below(threads.len() as u64) as usize];
            let _ = write!(
                line,
                "{comm:>16}-{tid:<5} ({tgid:>5}) [{cpu:03}] ...1 {secs}.{frac:06}: tracing_mark_write: C|{tgid}|hwui_Layer_count|{}",
                rng.below(40)
            );
        } else if roll < 97 {
            let state = if rng.below(2) == 0 { 4_294_967_295 } else { rng.below(3) };
            let _ = write!(
                line,
                "          <idle>-0     (-----) [{cpu:03}] d..2 {secs}.{frac:06}: cpu_idle: state={state} cpu_id={cpu}"
            );
        } else {
            freq[cpu] = [300_000, 787_200, 1_190_400, 1_958_400, 2_457_600][rng.below(5) as usize];
            let _ = write!(
                line,
                "     kworker/{cpu}:1-{:<5} (-----) [{cpu:03}] ...1 {secs}.{frac:06}: cpu_frequency: state={} cpu_id={cpu}",
                90 + cpu,
                freq[cpu]
            );
        }
        line.push('\n');
        w.write_all(line.as_bytes())?;
        written += line.len() as u64;
    }
    w.flush()?;
    eprintln!("wrote {out}: {written} bytes");
    Ok(())
}
