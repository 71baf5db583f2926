//! The bit-exact integer arithmetic coder of AdapTracer and its packing into
//! `W`-bit words. A probe in another language must mirror this exactly; the
//! crate documentation states the algorithm and `testdata/vectors.json`
//! pins it down.
//!
//! It is the classic 32-bit low/high coder with "pending" (underflow) bits of
//! Witten, Neal and Cleary, with exact interval partition, a 1-bit final
//! flush, and an output bit stream cut into `W`-bit words, most significant
//! bit first, trailing all-zero words dropped. All products stay below
//! `2^52`, so a signed 64-bit `long` suffices.

/// Bits of the coder's registers.
pub const PRECISION: u32 = 32;
const TOP: u64 = (1 << PRECISION) - 1;
const HALF: u64 = 1 << (PRECISION - 1);
const QUARTER: u64 = 1 << (PRECISION - 2);
/// Largest total count a model may pass to the coder.
pub const MAX_TOTAL: u64 = 1 << 20;

/// Narrows `[low, high]` to the symbol `[cum_low, cum_low + freq)` of
/// `total` (exact partition: the symbols of a block tile the interval).
#[inline]
fn narrow(low: &mut u64, high: &mut u64, cum_low: u64, freq: u64, total: u64) {
    let range = *high - *low + 1;
    *high = *low + range * (cum_low + freq) / total - 1;
    *low += range * cum_low / total;
}

/// [`narrow`] to the first (`[0, first)`) or second (`[first, total)`)
/// symbol of two. The second's high end is `low + range·total/total − 1`,
/// which is `high` itself, so one division gives both cases.
#[inline]
fn narrow_bit(low: &mut u64, high: &mut u64, first: u64, total: u64, one: bool) {
    let split = *low + (*high - *low + 1) * first / total;
    if one {
        *low = split;
    } else {
        *high = split - 1;
    }
}

/// Packs bits, most significant first, into `width`-bit words.
#[derive(Debug, Clone)]
pub struct BitWriter {
    width: u32,
    words: Vec<u64>,
    acc: u64,
    filled: u32,
    bits: u64,
}

impl BitWriter {
    /// An empty writer for `width`-bit words (1..=64).
    pub fn new(width: u32) -> Self {
        BitWriter {
            width,
            words: Vec::new(),
            acc: 0,
            filled: 0,
            bits: 0,
        }
    }

    /// Appends one bit.
    #[inline]
    pub fn put(&mut self, bit: bool) {
        self.acc = (self.acc << 1) | u64::from(bit);
        self.filled += 1;
        self.bits += 1;
        if self.filled == self.width {
            self.words.push(self.acc);
            self.acc = 0;
            self.filled = 0;
        }
    }

    /// Appends `n` copies of `bit`.
    #[inline]
    pub fn put_run(&mut self, bit: bool, n: u64) {
        for _ in 0..n {
            self.put(bit);
        }
    }

    /// Number of bits written so far.
    pub fn bit_count(&self) -> u64 {
        self.bits
    }

    /// Pads the last word with zeros and drops trailing all-zero words (a
    /// reader supplies zeros past the end).
    pub fn finish(mut self) -> Vec<u64> {
        if self.filled > 0 {
            self.words.push(self.acc << (self.width - self.filled));
        }
        while self.words.last() == Some(&0) {
            self.words.pop();
        }
        self.words
    }
}

/// Reads bits, most significant first, from `width`-bit words; zeros past
/// the end.
#[derive(Debug, Clone)]
pub struct BitReader<'a> {
    words: &'a [u64],
    width: u32,
    word: usize,
    bit: u32,
}

impl<'a> BitReader<'a> {
    /// Reads `words` of `width` bits each.
    pub fn new(words: &'a [u64], width: u32) -> Self {
        BitReader {
            words,
            width,
            word: 0,
            bit: 0,
        }
    }

    /// The next bit (0 past the end).
    #[inline]
    pub fn get(&mut self) -> u64 {
        let Some(&w) = self.words.get(self.word) else {
            return 0;
        };
        let b = (w >> (self.width - 1 - self.bit)) & 1;
        self.bit += 1;
        if self.bit == self.width {
            self.bit = 0;
            self.word += 1;
        }
        b
    }
}

/// Arithmetic encoder writing `width`-bit words.
#[derive(Debug, Clone)]
pub struct Encoder {
    low: u64,
    high: u64,
    pending: u64,
    out: BitWriter,
}

impl Encoder {
    /// A fresh encoder (`low = 0`, `high = 2^32 − 1`, no pending bits).
    pub fn new(width: u32) -> Self {
        Encoder {
            low: 0,
            high: TOP,
            pending: 0,
            out: BitWriter::new(width),
        }
    }

    /// Codes the symbol occupying `[cum_low, cum_low + freq)` of `total`
    /// (`0 < freq`, `cum_low + freq ≤ total ≤ MAX_TOTAL`).
    #[inline]
    pub fn encode(&mut self, cum_low: u64, freq: u64, total: u64) {
        debug_assert!(freq > 0 && cum_low + freq <= total && total <= MAX_TOTAL);
        narrow(&mut self.low, &mut self.high, cum_low, freq, total);
        self.renormalise();
    }

    /// Codes one bit of a pair of counts: `encode(0, first, total)` for
    /// `false`, `encode(first, total - first, total)` for `true`, with the
    /// same result and one division instead of three.
    #[inline]
    pub fn encode_bit(&mut self, first: u64, total: u64, one: bool) {
        debug_assert!(0 < first && first < total && total <= MAX_TOTAL);
        narrow_bit(&mut self.low, &mut self.high, first, total, one);
        self.renormalise();
    }

    /// Shifts out the settled bits of `low` and `high`, each followed by
    /// the pending ones.
    #[inline]
    fn renormalise(&mut self) {
        loop {
            if self.high < HALF {
                self.out.put(false);
                self.out.put_run(true, self.pending);
                self.pending = 0;
            } else if self.low >= HALF {
                self.out.put(true);
                self.out.put_run(false, self.pending);
                self.pending = 0;
                self.low -= HALF;
                self.high -= HALF;
            } else if self.low >= QUARTER && self.high < HALF + QUARTER {
                self.pending += 1;
                self.low -= QUARTER;
                self.high -= QUARTER;
            } else {
                break;
            }
            self.low <<= 1;
            self.high = (self.high << 1) | 1;
        }
    }

    /// Bits emitted so far (pending bits not included).
    pub fn bit_count(&self) -> u64 {
        self.out.bit_count()
    }

    /// The word width.
    pub fn width(&self) -> u32 {
        self.out.width
    }

    /// Flushes: if `low > 0` or bits are pending, one `1` bit (the value
    /// `HALF`, always inside `[low, high]`, whose pending bits are implied
    /// zeros); otherwise nothing. Returns the words.
    pub fn finish(mut self) -> Vec<u64> {
        if self.low > 0 || self.pending > 0 {
            self.out.put(true);
        }
        self.out.finish()
    }
}

/// Arithmetic decoder mirroring [`Encoder`].
#[derive(Debug, Clone)]
pub struct Decoder<'a> {
    low: u64,
    high: u64,
    value: u64,
    input: BitReader<'a>,
}

impl<'a> Decoder<'a> {
    /// Starts decoding `words` of `width` bits; reads the first 32 bits.
    pub fn new(words: &'a [u64], width: u32) -> Self {
        let mut input = BitReader::new(words, width);
        let mut value = 0;
        for _ in 0..PRECISION {
            value = (value << 1) | input.get();
        }
        Decoder {
            low: 0,
            high: TOP,
            value,
            input,
        }
    }

    /// The count in `[0, total)` that the next symbol's interval contains.
    #[inline]
    pub fn target(&self, total: u64) -> u64 {
        let range = self.high - self.low + 1;
        ((self.value - self.low + 1) * total - 1) / range
    }

    /// Removes the symbol `[cum_low, cum_low + freq)` of `total`, exactly
    /// as the encoder did.
    #[inline]
    pub fn consume(&mut self, cum_low: u64, freq: u64, total: u64) {
        narrow(&mut self.low, &mut self.high, cum_low, freq, total);
        self.renormalise();
    }

    /// Decodes what [`Encoder::encode_bit`] coded: `target(total) >= first`
    /// without its division (`⌊(x − 1) / range⌋ ≥ first` exactly when
    /// `x > first · range`, for `x = (value − low + 1) · total ≥ 1`), then
    /// consumes it.
    #[inline]
    pub fn decode_bit(&mut self, first: u64, total: u64) -> bool {
        debug_assert!(0 < first && first < total && total <= MAX_TOTAL);
        let range = self.high - self.low + 1;
        let one = (self.value - self.low + 1) * total > first * range;
        narrow_bit(&mut self.low, &mut self.high, first, total, one);
        self.renormalise();
        one
    }

    #[inline]
    fn renormalise(&mut self) {
        loop {
            if self.high < HALF {
            } else if self.low >= HALF {
                self.low -= HALF;
                self.high -= HALF;
                self.value -= HALF;
            } else if self.low >= QUARTER && self.high < HALF + QUARTER {
                self.low -= QUARTER;
                self.high -= QUARTER;
                self.value -= QUARTER;
            } else {
                break;
            }
            self.low <<= 1;
            self.high = (self.high << 1) | 1;
            self.value = (self.value << 1) | self.input.get();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(symbols: &[(u64, u64, u64)], width: u32) -> Vec<u64> {
        let mut e = Encoder::new(width);
        for &(c, f, t) in symbols {
            e.encode(c, f, t);
        }
        let words = e.finish();
        let mut d = Decoder::new(&words, width);
        for &(c, f, t) in symbols {
            let x = d.target(t);
            assert!(c <= x && x < c + f, "target {x} outside [{c}, {})", c + f);
            d.consume(c, f, t);
        }
        words
    }

    #[test]
    fn empty_and_all_first_symbols_cost_nothing() {
        assert!(roundtrip(&[], 8).is_empty());
        assert!(roundtrip(&[(0, 1, 2); 50], 8).is_empty());
    }

    #[test]
    fn one_bit_per_fair_binary_choice() {
        let syms: Vec<_> = (0..64).map(|i| ((i * 7 % 3 == 0) as u64, 1, 2)).collect();
        let words = roundtrip(&syms, 64);
        assert!(words.len() <= 2, "{words:?}");
        let mut e = Encoder::new(64);
        for &(c, f, t) in &syms {
            e.encode(c, f, t);
        }
        assert!(e.bit_count() <= 64);
    }

    #[test]
    fn skewed_symbols_and_all_widths() {
        let mut syms = Vec::new();
        let mut x: u64 = 12345;
        for _ in 0..2000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let total = 1 + (x >> 40) % MAX_TOTAL;
            let cum = (x >> 13) % total;
            let freq = 1 + (x >> 7) % (total - cum);
            syms.push((cum, freq, total));
        }
        for w in 3..=64 {
            roundtrip(&syms, w);
        }
    }

    proptest::proptest! {
        /// The one-division bit is the two-symbol `encode`/`consume`, word
        /// for word, mixed with general symbols.
        #[test]
        fn bits_code_as_two_symbol_picks(
            steps in proptest::collection::vec((1u64..=65535, 1u64..=65535, proptest::bool::ANY, 0u64..4), 1..400),
            width in 1u32..=64,
        ) {
            let (mut general, mut fast) = (Encoder::new(width), Encoder::new(width));
            for &(c0, c1, one, other) in &steps {
                let total = c0 + c1;
                if one { general.encode(c0, c1, total) } else { general.encode(0, c0, total) }
                fast.encode_bit(c0, total, one);
                general.encode(other, 1, 5);
                fast.encode(other, 1, 5);
            }
            let words = general.finish();
            proptest::prop_assert_eq!(&words, &fast.finish());
            let mut d = Decoder::new(&words, width);
            for &(c0, c1, one, other) in &steps {
                proptest::prop_assert_eq!(d.decode_bit(c0, c0 + c1), one);
                proptest::prop_assert_eq!(d.target(5), other);
                d.consume(other, 1, 5);
            }
        }
    }

    #[test]
    fn bit_writer_packs_msb_first_and_drops_zero_tail() {
        let mut w = BitWriter::new(3);
        for b in [true, false, true, false, true, false, false, false, false] {
            w.put(b);
        }
        assert_eq!(w.finish(), vec![0b101, 0b010]);
    }
}
