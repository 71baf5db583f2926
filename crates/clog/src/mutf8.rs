//! Java's "modified UTF-8" (as written by `DataOutputStream.writeUTF`):
//! NUL is two bytes (`C0 80`) and characters beyond the BMP are written as
//! two three-byte surrogates.

/// Encodes `s` as modified UTF-8.
pub(crate) fn encode(s: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    for c in s.chars() {
        let mut units = [0u16; 2];
        for &u in c.encode_utf16(&mut units).iter() {
            let u = u as u32;
            if u != 0 && u < 0x80 {
                out.push(u as u8);
            } else if u < 0x800 {
                out.push(0xC0 | (u >> 6) as u8);
                out.push(0x80 | (u & 0x3F) as u8);
            } else {
                out.push(0xE0 | (u >> 12) as u8);
                out.push(0x80 | ((u >> 6) & 0x3F) as u8);
                out.push(0x80 | (u & 0x3F) as u8);
            }
        }
    }
    out
}

/// Decodes modified UTF-8; `Err(i)` names the offending byte index.
pub(crate) fn decode(b: &[u8]) -> Result<String, usize> {
    let mut units: Vec<u16> = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let x = b[i] as u32;
        let cont = |j: usize| -> Result<u32, usize> {
            match b.get(j) {
                Some(&c) if c & 0xC0 == 0x80 => Ok((c & 0x3F) as u32),
                _ => Err(j.min(b.len().saturating_sub(1))),
            }
        };
        if x < 0x80 {
            units.push(x as u16);
            i += 1;
        } else if x & 0xE0 == 0xC0 {
            units.push((((x & 0x1F) << 6) | cont(i + 1)?) as u16);
            i += 2;
        } else if x & 0xF0 == 0xE0 {
            units.push((((x & 0x0F) << 12) | (cont(i + 1)? << 6) | cont(i + 2)?) as u16);
            i += 3;
        } else {
            return Err(i);
        }
    }
    String::from_utf16(&units).map_err(|_| b.len().saturating_sub(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_specifics() {
        assert_eq!(encode("a\0b"), vec![b'a', 0xC0, 0x80, b'b']);
        let smile = "\u{1F600}";
        let e = encode(smile);
        assert_eq!(e.len(), 6);
        assert_eq!(decode(&e).unwrap(), smile);
        assert_eq!(decode(&encode("héllo wörld")).unwrap(), "héllo wörld");
        assert!(decode(&[0xFF]).is_err());
        assert!(decode(&[0xE0, 0x80]).is_err());
    }
}
