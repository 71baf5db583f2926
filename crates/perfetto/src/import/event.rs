//! A `TrackEvent` read in place: the fields tracekit uses, borrowed from the
//! packet's bytes. Track events are most of a large trace, and decoding
//! each into `proto::TrackEvent` (a struct of a dozen vectors, allocated
//! and moved per event) cost half the import time; this walk reads the same
//! fields (field numbers as in `proto::TrackEvent`) without allocating.
//! Debug annotations, rare, are still decoded with prost.

use super::bad;
use crate::proto::DebugAnnotation;
use crate::wire::{varint, Fields, Value, WireResult};
use prost::Message;

/// Keys (`number << 3 | wire type`) of the fields every call event has.
const KEY_TYPE: u64 = 9 << 3;
const KEY_TRACK_UUID: u64 = 11 << 3;
const KEY_NAME_IID: u64 = 10 << 3;
const KEY_EXTRA_VALUE: u64 = 12 << 3;
const KEY_EXTRA_TRACK: u64 = 31 << 3;

/// Extra counter values kept per event; more are counted as skipped.
pub(crate) const MAX_EXTRA: usize = 4;

/// The fields of one track event.
#[derive(Debug, Default)]
pub(crate) struct EventView<'a> {
    pub typ: i32,
    pub track_uuid: Option<u64>,
    pub name_iid: Option<u64>,
    pub name: Option<&'a [u8]>,
    pub category_iid: Option<u64>,
    pub category: Option<&'a [u8]>,
    pub counter_value: Option<f64>,
    pub timestamp_absolute_us: Option<i64>,
    pub thread_time_absolute_us: Option<i64>,
    /// Extra counter track uuids and values (integer, then double).
    pub extra_ids: List<u64>,
    pub extra_values: List<f64>,
    pub extra_double_ids: List<u64>,
    pub extra_double_values: List<f64>,
    /// The event has debug annotations (decoded on demand by [`annotations`]).
    pub annotated: bool,
    /// Extra counter values beyond [`MAX_EXTRA`], dropped.
    pub overflow: bool,
}

/// A short list on the stack.
#[derive(Debug, Clone, Copy)]
pub(crate) struct List<T: Copy + Default> {
    items: [T; MAX_EXTRA],
    len: usize,
}

impl<T: Copy + Default> Default for List<T> {
    fn default() -> Self {
        List {
            items: [T::default(); MAX_EXTRA],
            len: 0,
        }
    }
}

impl<T: Copy + Default> List<T> {
    /// Appends; false when full.
    fn push(&mut self, v: T) -> bool {
        if self.len == MAX_EXTRA {
            return false;
        }
        self.items[self.len] = v;
        self.len += 1;
        true
    }

    pub(crate) fn as_slice(&self) -> &[T] {
        &self.items[..self.len]
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub(crate) fn from_slice(v: &[T]) -> List<T> {
        let mut l = List::default();
        for &x in v.iter().take(MAX_EXTRA) {
            l.push(x);
        }
        l
    }
}

impl<'a> EventView<'a> {
    /// Reads a `TrackEvent`'s bytes into `e` (reused: a fresh view costs
    /// a 300-byte copy per event).
    pub(crate) fn parse(e: &mut EventView<'a>, buf: &'a [u8]) -> WireResult<()> {
        e.typ = 0;
        e.track_uuid = None;
        e.name_iid = None;
        e.name = None;
        e.category_iid = None;
        e.category = None;
        e.counter_value = None;
        e.timestamp_absolute_us = None;
        e.thread_time_absolute_us = None;
        e.extra_ids.len = 0;
        e.extra_values.len = 0;
        e.extra_double_ids.len = 0;
        e.extra_double_values.len = 0;
        e.annotated = false;
        e.overflow = false;
        let mut fields = Fields::new(buf);
        while let Some((key, offset)) = fields.next_key()? {
            // The fields of a call's begin and end, by whole key.
            match key {
                KEY_TYPE => {
                    e.typ = fields.varint()? as i32;
                    continue;
                }
                KEY_TRACK_UUID => {
                    e.track_uuid = Some(fields.varint()?);
                    continue;
                }
                KEY_NAME_IID => {
                    e.name_iid = Some(fields.varint()?);
                    continue;
                }
                KEY_EXTRA_VALUE => {
                    let v = fields.varint()?;
                    e.overflow |= !e.extra_values.push(v as i64 as f64);
                    continue;
                }
                KEY_EXTRA_TRACK => {
                    let v = fields.varint()?;
                    e.overflow |= !e.extra_ids.push(v);
                    continue;
                }
                _ => {}
            }
            let f = fields.field(key, offset)?;
            let wrong = || bad(f.offset, "track_event field has the wrong wire type");
            match (f.number, f.value) {
                (9, v) => e.typ = v.as_u64().ok_or_else(wrong)? as i32,
                (11, v) => e.track_uuid = Some(v.as_u64().ok_or_else(wrong)?),
                (10, v) => e.name_iid = Some(v.as_u64().ok_or_else(wrong)?),
                (23, Value::Bytes(b)) => e.name = Some(b),
                (3, v) if e.category_iid.is_none() => e.category_iid = first(v).map_err(|_| wrong())?,
                (22, Value::Bytes(b)) => {
                    e.category.get_or_insert(b);
                }
                (30, Value::Varint(v)) => e.counter_value = Some(v as i64 as f64),
                (44, Value::Fixed64(v)) => e.counter_value = Some(f64::from_bits(v)),
                (16, Value::Varint(v)) => e.timestamp_absolute_us = Some(v as i64),
                (17, Value::Varint(v)) => e.thread_time_absolute_us = Some(v as i64),
                (31, v) => each_varint(v, |x| e.overflow |= !e.extra_ids.push(x)).map_err(|_| wrong())?,
                (12, v) => {
                    each_varint(v, |x| e.overflow |= !e.extra_values.push(x as i64 as f64)).map_err(|_| wrong())?
                }
                (45, v) => each_varint(v, |x| e.overflow |= !e.extra_double_ids.push(x)).map_err(|_| wrong())?,
                (46, v) => each_fixed64(v, |x| e.overflow |= !e.extra_double_values.push(f64::from_bits(x)))
                    .map_err(|_| wrong())?,
                (4, Value::Bytes(_)) => e.annotated = true,
                (23 | 22 | 4, _) => return Err(wrong()),
                _ => {}
            }
        }
        Ok(())
    }
}

/// The debug annotations of a track event's bytes.
pub(crate) fn annotations(buf: &[u8]) -> WireResult<Vec<DebugAnnotation>> {
    let mut out = Vec::new();
    let mut fields = Fields::new(buf);
    while let Some(f) = fields.next_field()? {
        if let (4, Value::Bytes(b)) = (f.number, f.value) {
            out.push(DebugAnnotation::decode(b).map_err(|_| bad(f.offset, "malformed debug annotation"))?);
        }
    }
    Ok(out)
}

/// The first value of a repeated varint field (packed or not).
fn first(v: Value<'_>) -> Result<Option<u64>, ()> {
    let mut out = None;
    each_varint(v, |x| {
        out.get_or_insert(x);
    })?;
    Ok(out)
}

/// Calls `f` for each value of a repeated varint field, packed or not.
fn each_varint(v: Value<'_>, mut f: impl FnMut(u64)) -> Result<(), ()> {
    match v {
        Value::Varint(x) => f(x),
        Value::Bytes(b) => {
            let mut pos = 0;
            while pos < b.len() {
                f(varint(b, &mut pos).map_err(|_| ())?);
            }
        }
        _ => return Err(()),
    }
    Ok(())
}

/// Calls `f` for each value of a repeated 64-bit fixed field, packed or not.
fn each_fixed64(v: Value<'_>, mut f: impl FnMut(u64)) -> Result<(), ()> {
    match v {
        Value::Fixed64(x) => f(x),
        Value::Bytes(b) if b.len() % 8 == 0 => {
            for c in b.chunks_exact(8) {
                f(u64::from_le_bytes(c.try_into().map_err(|_| ())?));
            }
        }
        _ => return Err(()),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::TrackEvent;

    #[test]
    fn reads_what_prost_writes_packed_or_not() {
        let ev = TrackEvent {
            r#type: Some(1),
            track_uuid: Some(7),
            name_iid: Some(3),
            category_iids: vec![5, 6],
            extra_counter_track_uuids: vec![9],
            extra_counter_values: vec![-4],
            extra_double_counter_track_uuids: vec![10, 11],
            extra_double_counter_values: vec![0.5, 1.5],
            double_counter_value: Some(2.25),
            ..Default::default()
        };
        let bytes = ev.encode_to_vec();
        let mut v = EventView::default();
        EventView::parse(&mut v, &bytes).unwrap();
        assert_eq!(
            (v.typ, v.track_uuid, v.name_iid, v.category_iid),
            (1, Some(7), Some(3), Some(5))
        );
        assert_eq!(v.extra_ids.as_slice(), &[9]);
        assert_eq!(v.extra_values.as_slice(), &[-4.0]);
        assert_eq!(v.extra_double_ids.as_slice(), &[10, 11]);
        assert_eq!(v.extra_double_values.as_slice(), &[0.5, 1.5]);
        assert_eq!(v.counter_value, Some(2.25));
        // Packed: field 31 as one length-delimited run of varints.
        let packed = [0xfa, 0x01, 0x02, 0x09, 0x0a, 0x48, 0x02];
        EventView::parse(&mut v, &packed).unwrap();
        assert_eq!(v.extra_ids.as_slice(), &[9, 10]);
        assert_eq!(v.typ, 2);
    }
}
