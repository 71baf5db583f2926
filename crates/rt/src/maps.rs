//! Snapshots of `/proc/self/maps` appended to the recording, so that every
//! address can be symbolized offline — also those of a library that was
//! `dlopen`ed and unloaded again before the program ended.
//!
//! Each snapshot is the line `MAPS_SNAPSHOT_LINE <raw clock>` followed by
//! the map's text, appended to `maps-<pid>-<image>.txt` with plain
//! `open`/`read`/`write` calls and stack buffers: nothing here allocates,
//! so it is safe right after `fork` and inside the loader's hooks.

use crate::process;
use std::sync::atomic::{AtomicBool, Ordering};
use tracekit_rt_format::names::MAPS_SNAPSHOT_LINE;

static LOCK: AtomicBool = AtomicBool::new(false);

/// A path as a NUL-terminated byte string on the stack.
pub struct CPath {
    buf: [u8; 4096],
    len: usize,
}

impl CPath {
    /// `dir/name`, or `None` when it does not fit.
    pub fn join(dir: &[u8], name: &[u8]) -> Option<CPath> {
        let mut p = CPath { buf: [0; 4096], len: 0 };
        p.push(dir)?;
        p.push(b"/")?;
        p.push(name)?;
        Some(p)
    }

    fn push(&mut self, b: &[u8]) -> Option<()> {
        if self.len + b.len() + 1 > self.buf.len() || b.contains(&0) {
            return None;
        }
        self.buf[self.len..self.len + b.len()].copy_from_slice(b);
        self.len += b.len();
        self.buf[self.len] = 0;
        Some(())
    }

    /// The C string.
    pub fn as_ptr(&self) -> *const libc::c_char {
        self.buf.as_ptr() as *const libc::c_char
    }
}

/// Writes the decimal digits of `v` into `out`; returns how many.
pub fn decimal(mut v: u64, out: &mut [u8; 20]) -> usize {
    let mut tmp = [0u8; 20];
    let mut n = 0;
    loop {
        tmp[n] = b'0' + (v % 10) as u8;
        n += 1;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    for i in 0..n {
        out[i] = tmp[n - 1 - i];
    }
    n
}

/// Writes all of `b` to `fd`, retrying short writes and interruptions.
pub fn write_all(fd: libc::c_int, mut b: &[u8]) -> bool {
    while !b.is_empty() {
        // SAFETY: b is a valid readable buffer.
        let n = unsafe { libc::write(fd, b.as_ptr() as *const libc::c_void, b.len()) };
        if n < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return false;
        }
        b = &b[n as usize..];
    }
    true
}

/// File name of this process image's maps file, on the stack.
fn file_name(out: &mut [u8; 64]) -> usize {
    let mut n = 0;
    let mut put = |b: &[u8]| {
        out[n..n + b.len()].copy_from_slice(b);
        n += b.len();
    };
    let mut d = [0u8; 20];
    put(b"maps-");
    let k = decimal(process::pid() as u64, &mut d);
    put(&d[..k]);
    put(b"-");
    let k = decimal(process::image(), &mut d);
    put(&d[..k]);
    put(b".txt");
    n
}

/// Appends one snapshot of the process map, stamped with the event clock.
pub fn snapshot() {
    let Some(cfg) = process::config() else { return };
    while LOCK
        .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
        .is_err()
    {
        std::hint::spin_loop();
    }
    append(cfg.dir_bytes());
    LOCK.store(false, Ordering::Release);
}

/// Forgets a lock another thread held when this process was forked.
pub fn reset_after_fork() {
    LOCK.store(false, Ordering::Release);
}

fn append(dir: &[u8]) {
    let mut name = [0u8; 64];
    let n = file_name(&mut name);
    let Some(path) = CPath::join(dir, &name[..n]) else {
        return;
    };
    // SAFETY: NUL-terminated paths; the descriptors are closed below.
    let out = unsafe {
        libc::open(
            path.as_ptr(),
            libc::O_WRONLY | libc::O_APPEND | libc::O_CREAT | libc::O_CLOEXEC,
            0o644,
        )
    };
    if out < 0 {
        return;
    }
    let input = unsafe { libc::open(c"/proc/self/maps".as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) };
    if input >= 0 {
        // The whole snapshot is gathered first (maps rarely exceed a few
        // pages) so that it lands with one append.
        let mut buf = [0u8; 32768];
        let mut len = 0;
        let head = MAPS_SNAPSHOT_LINE.as_bytes();
        buf[..head.len()].copy_from_slice(head);
        len += head.len();
        let mut d = [0u8; 20];
        let k = decimal(crate::clock::now(), &mut d);
        buf[len..len + k].copy_from_slice(&d[..k]);
        len += k;
        buf[len] = b'\n';
        len += 1;
        loop {
            if len == buf.len() {
                if !write_all(out, &buf[..len]) {
                    break;
                }
                len = 0;
            }
            // SAFETY: reading into the free tail of our buffer.
            let r = unsafe { libc::read(input, buf[len..].as_mut_ptr() as *mut libc::c_void, buf.len() - len) };
            if r <= 0 {
                write_all(out, &buf[..len]);
                break;
            }
            len += r as usize;
        }
        unsafe { libc::close(input) };
    }
    unsafe { libc::close(out) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_digits() {
        let mut d = [0u8; 20];
        let n = decimal(0, &mut d);
        assert_eq!(&d[..n], b"0");
        let n = decimal(u64::MAX, &mut d);
        assert_eq!(&d[..n], u64::MAX.to_string().as_bytes());
        let p = CPath::join(b"/tmp", b"x.txt").unwrap();
        assert_eq!(
            unsafe { std::ffi::CStr::from_ptr(p.as_ptr()) }.to_bytes(),
            b"/tmp/x.txt"
        );
    }
}
