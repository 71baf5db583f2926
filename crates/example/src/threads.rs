//! Building one thread's call events with a moving clock.

use tracekit_model::{CallEvent, MethodId};

/// Builds the balanced call events of one thread. Times are whole
/// microseconds (stored as ns) because Android traces keep µs.
pub(crate) struct ThreadGen {
    pub events: Vec<CallEvent>,
    stack: Vec<MethodId>,
    /// Wall clock, µs since the trace start.
    pub now_us: u64,
    cpu_us: f64,
}

impl ThreadGen {
    pub fn new(start_us: u64) -> ThreadGen {
        ThreadGen {
            events: Vec::new(),
            stack: Vec::new(),
            now_us: start_us,
            cpu_us: 0.0,
        }
    }

    fn stamp(&self) -> (u64, Option<u64>) {
        (self.now_us * 1000, Some(self.cpu_us as u64 * 1000))
    }

    pub fn enter(&mut self, m: MethodId) {
        self.busy(1);
        let (w, c) = self.stamp();
        self.events.push(CallEvent::enter(m, w, c));
        self.stack.push(m);
    }

    pub fn exit(&mut self) {
        self.busy(1);
        if let Some(m) = self.stack.pop() {
            let (w, c) = self.stamp();
            self.events.push(CallEvent::exit(m, w, c));
        }
    }

    /// Leaves the innermost method by an exception.
    pub fn unwind(&mut self) {
        if let Some(m) = self.stack.pop() {
            let (w, c) = self.stamp();
            self.events.push(CallEvent::unwind(m, w, c));
        }
    }

    /// Calls `m` for `us` microseconds of work (plus whatever `body` adds).
    pub fn call(&mut self, m: MethodId, us: u64, body: impl FnOnce(&mut ThreadGen)) {
        self.enter(m);
        self.busy(us / 2);
        body(self);
        self.busy(us - us / 2);
        self.exit();
    }

    /// A leaf call.
    pub fn leaf(&mut self, m: MethodId, us: u64) {
        self.call(m, us, |_| {});
    }

    /// Running on the CPU.
    pub fn busy(&mut self, us: u64) {
        self.now_us += us;
        self.cpu_us += us as f64 * 0.92;
    }

    /// Blocked (sleeping, waiting for input).
    pub fn idle_until(&mut self, t_us: u64) {
        if t_us > self.now_us {
            self.cpu_us += (t_us - self.now_us) as f64 * 0.002;
            self.now_us = t_us;
        }
    }

    /// Closes everything still open.
    pub fn finish(mut self) -> Vec<CallEvent> {
        while !self.stack.is_empty() {
            self.exit();
        }
        self.events
    }
}
