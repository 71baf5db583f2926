//! Clock domains and unit helpers.

use serde::{Deserialize, Serialize};

/// Nanoseconds in one microsecond.
pub const NS_PER_US: u64 = 1_000;

/// A source of timestamps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClockDomain {
    /// Wall (real) time, counted from the session's anchor.
    Wall,
    /// CPU time consumed by the thread, counted from its first reading.
    ThreadCpu,
}

/// Which clock domains a session's call events carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Clocks {
    /// Call events have wall-clock timestamps.
    pub wall: bool,
    /// Call events have thread-CPU timestamps.
    pub thread_cpu: bool,
}

impl Clocks {
    /// Wall clock only.
    pub const WALL: Clocks = Clocks {
        wall: true,
        thread_cpu: false,
    };
    /// Thread-CPU clock only.
    pub const THREAD_CPU: Clocks = Clocks {
        wall: false,
        thread_cpu: true,
    };
    /// Both clocks.
    pub const DUAL: Clocks = Clocks {
        wall: true,
        thread_cpu: true,
    };

    /// The name Android's trace files use: `wall`, `thread-cpu` or `dual`.
    pub fn name(self) -> &'static str {
        match (self.wall, self.thread_cpu) {
            (true, true) => "dual",
            (false, true) => "thread-cpu",
            _ => "wall",
        }
    }

    /// Parses `wall`, `thread-cpu` or `dual`.
    pub fn from_name(name: &str) -> Option<Clocks> {
        match name {
            "wall" => Some(Clocks::WALL),
            "thread-cpu" => Some(Clocks::THREAD_CPU),
            "dual" => Some(Clocks::DUAL),
            _ => None,
        }
    }

    /// Whether this set includes `domain`.
    pub fn has(self, domain: ClockDomain) -> bool {
        match domain {
            ClockDomain::Wall => self.wall,
            ClockDomain::ThreadCpu => self.thread_cpu,
        }
    }

    /// The clock a timeline should use: wall if present, else thread-CPU.
    pub fn timeline(self) -> ClockDomain {
        if self.wall {
            ClockDomain::Wall
        } else {
            ClockDomain::ThreadCpu
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for c in [Clocks::WALL, Clocks::THREAD_CPU, Clocks::DUAL] {
            assert_eq!(Clocks::from_name(c.name()), Some(c));
        }
        assert_eq!(Clocks::from_name("tsc"), None);
        assert_eq!(Clocks::THREAD_CPU.timeline(), ClockDomain::ThreadCpu);
    }
}
