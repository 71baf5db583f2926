//! Streaming input: a chunk buffer that hands out lines and finds strings
//! without ever holding more than one buffer (plus one line) of the input,
//! and an inflater for `TRACE:` + zlib bodies that reports where it failed.

use memchr::{memchr, memmem};
use std::io::{self, Read};

/// The buffer's first size: small inputs cost little, large ones are read
/// 256 KiB at a time.
const INITIAL: usize = 256 * 1024;
/// The buffer's largest size: a line of [`MAX_LINE`] plus a read.
const MAX_BUF: usize = (1 << 20) + MAX_LINE;
/// The longest line accepted (ftrace lines are at most a page or so; a
/// longer one means the input is not ftrace text, and holding it would
/// make memory unbounded).
pub(crate) const MAX_LINE: usize = 1 << 20;

/// A window `[start, end)` over a buffer refilled from `inner`.
pub(crate) struct Chunked<R> {
    inner: R,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    eof: bool,
    /// Stream offset of `buf[start]`.
    pub(crate) offset: u64,
    /// Newlines consumed so far (the 1-based line number of `buf[start]` is this + 1).
    pub(crate) newlines: u64,
}

/// A line handed out by [`Chunked::next_line`].
pub(crate) struct LineAt {
    pub(crate) range: std::ops::Range<usize>,
    /// False when the input ended without a newline after it.
    pub(crate) terminated: bool,
}

impl<R: Read> Chunked<R> {
    pub(crate) fn new(inner: R) -> Chunked<R> {
        Chunked {
            inner,
            buf: vec![0; INITIAL],
            start: 0,
            end: 0,
            eof: false,
            offset: 0,
            newlines: 0,
        }
    }

    /// The buffered, unconsumed bytes.
    pub(crate) fn window(&self) -> &[u8] {
        &self.buf[self.start..self.end]
    }

    /// Makes sure at least `n` bytes are buffered unless the input ends first.
    pub(crate) fn fill_to(&mut self, n: usize) -> io::Result<()> {
        let n = n.min(MAX_BUF);
        while self.end - self.start < n && !self.eof {
            self.read_more()?;
        }
        Ok(())
    }

    /// Reads more input after `end`, moving the window to the buffer's start
    /// first when it is in the way. Sets `eof` when the input has ended.
    fn read_more(&mut self) -> io::Result<()> {
        if self.end == self.buf.len() {
            if self.start > 0 {
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            } else if self.buf.len() < MAX_BUF {
                self.buf.resize((self.buf.len() * 2).min(MAX_BUF), 0);
            } else {
                return Err(io::Error::other("buffer full"));
            }
        }
        loop {
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(());
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(());
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// Consumes `n` buffered bytes, counting the newlines among them.
    pub(crate) fn consume(&mut self, n: usize) {
        self.newlines += memchr::memchr_iter(b'\n', &self.buf[self.start..self.start + n]).count() as u64;
        self.consume_uncounted(n);
    }

    fn consume_uncounted(&mut self, n: usize) {
        self.start += n;
        self.offset += n as u64;
    }

    /// The next line (without its `\n`), or `None` at the end of the input.
    /// `Err` with kind `InvalidData` when a line exceeds [`MAX_LINE`].
    pub(crate) fn next_line(&mut self) -> io::Result<Option<LineAt>> {
        let mut scanned = 0;
        loop {
            if let Some(i) = memchr(b'\n', &self.buf[self.start + scanned..self.end]) {
                let line_start = self.start;
                let nl = self.start + scanned + i;
                self.newlines += 1;
                self.consume_uncounted(nl + 1 - line_start);
                return Ok(Some(LineAt {
                    range: line_start..nl,
                    terminated: true,
                }));
            }
            scanned = self.end - self.start;
            if self.eof {
                if scanned == 0 {
                    return Ok(None);
                }
                let line_start = self.start;
                self.consume_uncounted(scanned);
                return Ok(Some(LineAt {
                    range: line_start..line_start + scanned,
                    terminated: false,
                }));
            }
            if scanned >= MAX_LINE {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("a line longer than {} MiB", MAX_LINE >> 20),
                ));
            }
            self.read_more()?;
        }
    }

    /// Like [`Chunked::next_line`], but a line stops early at `stop` (which
    /// is consumed): the `bool` is true when it did, i.e. the block ended.
    pub(crate) fn next_line_before(&mut self, stop: &[u8]) -> io::Result<Option<(LineAt, bool)>> {
        let mut scanned = 0;
        loop {
            let w = &self.buf[self.start..self.end];
            let nl = memchr(b'\n', &w[scanned..]).map(|i| scanned + i);
            let upto = nl.unwrap_or(w.len());
            // The stop needle has no newline, so it lies inside one line.
            let from = scanned.saturating_sub(stop.len());
            if let Some(k) = memmem::find(&w[from..upto], stop) {
                let line_start = self.start;
                let at = from + k;
                self.consume_uncounted(at + stop.len());
                return Ok(Some((
                    LineAt {
                        range: line_start..line_start + at,
                        terminated: true,
                    },
                    true,
                )));
            }
            if let Some(nl) = nl {
                let line_start = self.start;
                self.newlines += 1;
                self.consume_uncounted(nl + 1);
                return Ok(Some((
                    LineAt {
                        range: line_start..line_start + nl,
                        terminated: true,
                    },
                    false,
                )));
            }
            scanned = w.len();
            if self.eof {
                if scanned == 0 {
                    return Ok(None);
                }
                let line_start = self.start;
                self.consume_uncounted(scanned);
                return Ok(Some((
                    LineAt {
                        range: line_start..line_start + scanned,
                        terminated: false,
                    },
                    false,
                )));
            }
            if scanned >= MAX_LINE {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("a line longer than {} MiB", MAX_LINE >> 20),
                ));
            }
            self.read_more()?;
        }
    }

    /// The bytes of a line handed out by [`Chunked::next_line`] (valid until
    /// the next call that reads).
    pub(crate) fn bytes(&self, r: &std::ops::Range<usize>) -> &[u8] {
        &self.buf[r.clone()]
    }

    /// Consumes input up to and including the earliest of `needles`, and
    /// says which one; `None` (everything consumed) when none occurs.
    pub(crate) fn skip_past(&mut self, needles: &[&[u8]]) -> io::Result<Option<usize>> {
        let longest = needles.iter().map(|n| n.len()).max().unwrap_or(1);
        loop {
            let w = self.window();
            let hit = needles
                .iter()
                .enumerate()
                .filter_map(|(k, n)| memmem::find(w, n).map(|at| (at, k)))
                .min();
            if let Some((at, k)) = hit {
                self.consume(at + needles[k].len());
                return Ok(Some(k));
            }
            if self.eof {
                let n = self.window().len();
                self.consume(n);
                return Ok(None);
            }
            // Keep a tail that could be the start of a needle.
            let keep = (longest - 1).min(w.len());
            self.consume(w.len() - keep);
            self.read_more()?;
        }
    }

    /// Consumes and returns the bytes before the next `stop` byte (which is
    /// consumed too), if it comes within `max` bytes.
    pub(crate) fn take_until(&mut self, stop: u8, max: usize) -> io::Result<Option<Vec<u8>>> {
        self.fill_to(max + 1)?;
        let w = self.window();
        let lim = w.len().min(max + 1);
        match memchr(stop, &w[..lim]) {
            Some(i) => {
                let out = w[..i].to_vec();
                self.consume(i + 1);
                Ok(Some(out))
            }
            None => Ok(None),
        }
    }

    /// The reader the chunks come from.
    pub(crate) fn inner(&self) -> &R {
        &self.inner
    }

    /// The rest of the input: the buffered bytes, then the inner reader.
    pub(crate) fn into_rest(self) -> io::Chain<io::Cursor<Vec<u8>>, R> {
        let buffered = self.buf[self.start..self.end].to_vec();
        io::Cursor::new(buffered).chain(self.inner)
    }
}

/// Inflates a zlib stream read from `inner`, remembering where it failed,
/// whether the input ended before the stream did, and how many bytes
/// followed the stream's end.
pub(crate) struct Inflate<R> {
    inner: R,
    input: Vec<u8>,
    in_start: usize,
    in_end: usize,
    inner_eof: bool,
    z: flate2::Decompress,
    done: bool,
    /// File offset of the zlib stream's first byte.
    pub(crate) body_start: u64,
    /// The input ended before the stream's end.
    pub(crate) truncated: bool,
    /// Bytes after the stream's end.
    pub(crate) trailing: u64,
    /// Where (file offset) and why inflating failed.
    pub(crate) failure: Option<(u64, String)>,
}

impl<R: Read> Inflate<R> {
    pub(crate) fn new(inner: R, body_start: u64) -> Inflate<R> {
        Inflate {
            inner,
            input: vec![0; 64 * 1024],
            in_start: 0,
            in_end: 0,
            inner_eof: false,
            z: flate2::Decompress::new(true),
            done: false,
            body_start,
            truncated: false,
            trailing: 0,
            failure: None,
        }
    }

    fn refill(&mut self) -> io::Result<()> {
        self.in_start = 0;
        self.in_end = 0;
        loop {
            match self.inner.read(&mut self.input) {
                Ok(0) => {
                    self.inner_eof = true;
                    return Ok(());
                }
                Ok(n) => {
                    self.in_end = n;
                    return Ok(());
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }

    fn count_trailing(&mut self) -> io::Result<()> {
        self.trailing = (self.in_end - self.in_start) as u64;
        self.in_start = self.in_end;
        while !self.inner_eof {
            self.refill()?;
            self.trailing += self.in_end as u64;
        }
        self.in_start = self.in_end;
        Ok(())
    }

    fn fail(&mut self, message: String) -> io::Error {
        let at = self.body_start + self.z.total_in();
        self.failure = Some((at, message.clone()));
        self.done = true;
        io::Error::new(io::ErrorKind::InvalidData, message)
    }
}

impl<R: Read> Read for Inflate<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.done || out.is_empty() {
            return Ok(0);
        }
        loop {
            if self.in_start == self.in_end && !self.inner_eof {
                self.refill()?;
            }
            let (in0, out0) = (self.z.total_in(), self.z.total_out());
            let status = self.z.decompress(
                &self.input[self.in_start..self.in_end],
                out,
                flate2::FlushDecompress::None,
            );
            let used = (self.z.total_in() - in0) as usize;
            let made = (self.z.total_out() - out0) as usize;
            self.in_start += used;
            match status {
                Err(e) => return Err(self.fail(e.to_string())),
                Ok(flate2::Status::StreamEnd) => {
                    self.done = true;
                    self.count_trailing()?;
                    return Ok(made);
                }
                Ok(_) => {}
            }
            if made > 0 {
                return Ok(made);
            }
            if self.in_start == self.in_end && self.inner_eof {
                self.truncated = true;
                self.done = true;
                return Ok(0);
            }
            if used == 0 && self.in_start < self.in_end {
                return Err(self.fail("the inflater made no progress".into()));
            }
        }
    }
}

/// True when `b` starts with a zlib header (deflate, window ≤ 32 KiB,
/// header checksum right).
pub(crate) fn is_zlib_header(b: &[u8]) -> bool {
    match b {
        [cmf, flg, ..] => cmf & 0x0F == 8 && cmf >> 4 <= 7 && (u16::from(*cmf) * 256 + u16::from(*flg)) % 31 == 0,
        _ => false,
    }
}

/// Decodes the body of a JavaScript string literal, one physical line at a
/// time (the legacy systrace form `var linuxPerfData = "…\n\` … `";`):
/// `\n` ends a logical line, a `\` at the end of a physical line continues
/// it, the usual escapes are undone, and an unescaped `"` ends the string.
#[derive(Default)]
pub(crate) struct JsString {
    /// The logical line being assembled.
    pub(crate) line: Vec<u8>,
}

/// What [`JsString::feed`] found in one physical line.
pub(crate) enum JsStep {
    /// Logical lines completed (their text was passed to the callback); the
    /// string goes on.
    More,
    /// The string ended at this byte offset of the physical line.
    Ended(usize),
}

impl JsString {
    /// Decodes one physical line, calling `emit` with each completed logical
    /// line and whether it is whole (`terminated` is false for a physical
    /// line the input cut short; its unfinished logical line is not whole).
    pub(crate) fn feed<E>(
        &mut self,
        phys: &[u8],
        terminated: bool,
        emit: &mut impl FnMut(&[u8], bool) -> Result<(), E>,
    ) -> Result<JsStep, E> {
        let mut i = 0;
        while i < phys.len() {
            let c = phys[i];
            match c {
                b'"' => return Ok(JsStep::Ended(i)),
                b'\\' => {
                    let Some(&e) = phys.get(i + 1) else {
                        // Line continuation.
                        return Ok(JsStep::More);
                    };
                    i += 2;
                    match e {
                        b'n' => {
                            emit(&self.line, true)?;
                            self.line.clear();
                        }
                        b't' => self.line.push(b'\t'),
                        b'r' => {}
                        b'0' => self.line.push(0),
                        b'x' | b'u' => {
                            let n = if e == b'x' { 2 } else { 4 };
                            let hex = phys.get(i..i + n).and_then(|h| std::str::from_utf8(h).ok());
                            match hex
                                .and_then(|h| u32::from_str_radix(h, 16).ok())
                                .and_then(char::from_u32)
                            {
                                Some(ch) => {
                                    let mut b = [0; 4];
                                    self.line.extend_from_slice(ch.encode_utf8(&mut b).as_bytes());
                                    i += n;
                                }
                                None => self.line.push(e),
                            }
                        }
                        other => self.line.push(other),
                    }
                    continue;
                }
                _ => self.line.push(c),
            }
            i += 1;
        }
        // A raw newline inside a string literal is not JavaScript; take it
        // as the end of a logical line rather than fail.
        if !self.line.is_empty() {
            emit(&self.line, terminated)?;
            self.line.clear();
        }
        Ok(JsStep::More)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that hands out at most `n` bytes per call.
    struct Trickle<'a>(&'a [u8], usize);
    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let n = self.0.len().min(self.1).min(out.len());
            out[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn lines_across_reads() {
        let mut c = Chunked::new(Trickle(b"ab\ncde\n\nf", 2));
        let mut got = Vec::new();
        while let Some(l) = c.next_line().unwrap() {
            got.push((c.bytes(&l.range).to_vec(), l.terminated));
        }
        assert_eq!(
            got,
            vec![
                (b"ab".to_vec(), true),
                (b"cde".to_vec(), true),
                (b"".to_vec(), true),
                (b"f".to_vec(), false)
            ]
        );
        assert_eq!(c.newlines, 3);
    }

    #[test]
    fn skip_past_finds_needles_split_across_reads() {
        let text = b"x\ny <scr\nipt <script class=a>\nz </script>";
        let mut c = Chunked::new(Trickle(text, 3));
        assert_eq!(c.skip_past(&[b"<script", b"</script"]).unwrap(), Some(0));
        assert_eq!(c.newlines, 2);
        assert_eq!(c.take_until(b'>', 100).unwrap(), Some(b" class=a".to_vec()));
        assert_eq!(c.skip_past(&[b"</script"]).unwrap(), Some(0));
        assert_eq!(c.newlines, 3);
        assert_eq!(c.skip_past(&[b"<script"]).unwrap(), None);
    }

    #[test]
    fn inflate_reports_truncation_and_trailing_bytes() {
        use flate2::{write::ZlibEncoder, Compression};
        use std::io::Write;
        let mut e = ZlibEncoder::new(Vec::new(), Compression::default());
        let text: Vec<u8> = (0..2000).flat_map(|i| format!("line {i}\n").into_bytes()).collect();
        e.write_all(&text).unwrap();
        let z = e.finish().unwrap();

        let mut with_tail = z.clone();
        with_tail.extend_from_slice(b"junkjunk");
        let mut inf = Inflate::new(Trickle(&with_tail, 7), 7);
        let mut out = Vec::new();
        inf.read_to_end(&mut out).unwrap();
        assert_eq!(out, text);
        assert_eq!((inf.truncated, inf.trailing), (false, 8));

        let cut = &z[..z.len() / 2];
        let mut inf = Inflate::new(cut, 0);
        let mut out = Vec::new();
        inf.read_to_end(&mut out).unwrap();
        assert!(inf.truncated);
        assert!(!out.is_empty() && text.starts_with(&out));

        let mut bad = z.clone();
        bad[0] = 0x00;
        let mut inf = Inflate::new(&bad[..], 7);
        assert!(inf.read_to_end(&mut Vec::new()).is_err());
        // The inflater stops after the two header bytes it rejected.
        let at = inf.failure.as_ref().unwrap().0;
        assert!((7..=9).contains(&at), "{at}");
    }

    #[test]
    fn zlib_headers() {
        assert!(is_zlib_header(&[0x78, 0x9c]));
        assert!(is_zlib_header(&[0x78, 0x01]));
        assert!(is_zlib_header(&[0x78, 0xda]));
        assert!(!is_zlib_header(b"# tracer"));
        assert!(!is_zlib_header(&[0x78]));
    }

    #[test]
    fn js_strings() {
        let mut js = JsString::default();
        let mut lines: Vec<Vec<u8>> = Vec::new();
        let mut emit = |l: &[u8], _whole: bool| -> Result<(), ()> {
            lines.push(l.to_vec());
            Ok(())
        };
        assert!(matches!(
            js.feed(b"# tracer: nop\\n\\", true, &mut emit),
            Ok(JsStep::More)
        ));
        assert!(matches!(
            js.feed(b"a \\\"q\\\" \\x41\\u00e9\\t\\\\\\n\\", true, &mut emit),
            Ok(JsStep::More)
        ));
        assert!(matches!(
            js.feed(b"  last\\n\";", true, &mut emit),
            Ok(JsStep::Ended(8))
        ));
        assert_eq!(
            lines,
            vec![
                b"# tracer: nop".to_vec(),
                "a \"q\" Aé\t\\".as_bytes().to_vec(),
                b"  last".to_vec()
            ]
        );
    }
}
