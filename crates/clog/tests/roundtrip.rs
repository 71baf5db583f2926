//! Property tests: write → read gives back the log, in both data forms; and
//! no byte string makes the reader panic.

use proptest::prelude::*;
use tracekit_clog::{read, write_binary, write_text, ContextLog, DataForm, LogDef, Record};
use tracekit_model::{ContextType, ContextValue};

fn kind() -> impl Strategy<Value = ContextType> {
    prop_oneof![
        Just(ContextType::Int),
        Just(ContextType::Long),
        Just(ContextType::Float),
        Just(ContextType::Double),
        Just(ContextType::String),
    ]
}

fn value(k: ContextType) -> BoxedStrategy<ContextValue> {
    match k {
        ContextType::Int => any::<i32>().prop_map(ContextValue::Int).boxed(),
        ContextType::Long => any::<i64>().prop_map(ContextValue::Long).boxed(),
        // NaN never equals itself; every other bit pattern must survive.
        ContextType::Float => any::<f32>()
            .prop_filter("not NaN", |v| !v.is_nan())
            .prop_map(ContextValue::Float)
            .boxed(),
        ContextType::Double => any::<f64>()
            .prop_filter("not NaN", |v| !v.is_nan())
            .prop_map(ContextValue::Double)
            .boxed(),
        ContextType::String => ".{0,24}".prop_map(ContextValue::Str).boxed(),
    }
}

fn log() -> impl Strategy<Value = ContextLog> {
    (
        prop::collection::vec((kind(), "[A-Za-z][A-Za-z0-9 ]{0,20}"), 1..6),
        any::<i64>(),
    )
        .prop_flat_map(|(kinds, start)| {
            let defs: Vec<LogDef> = kinds
                .iter()
                .enumerate()
                .map(|(i, (k, l))| LogDef {
                    id: i as u32,
                    kind: *k,
                    label: l.trim().to_string() + "x",
                })
                .collect();
            let n = defs.len();
            let kinds: Vec<ContextType> = defs.iter().map(|d| d.kind).collect();
            let rec = (0..n).prop_flat_map(move |id| {
                let k = kinds[id];
                (Just(id as u32), 0i64..10_000_000_000, value(k))
            });
            prop::collection::vec(rec, 0..40).prop_map(move |rs| ContextLog {
                version: 1,
                start_unix_us: start,
                defs: defs.clone(),
                records: rs
                    .into_iter()
                    .map(|(log_id, delta_us, value)| Record {
                        log_id,
                        delta_us,
                        value,
                    })
                    .collect(),
            })
        })
}

proptest! {
    #[test]
    fn binary_round_trip(l in log()) {
        let mut b = Vec::new();
        write_binary(&l, &mut b).unwrap();
        let back = read(&b).unwrap();
        prop_assert_eq!(back.form, DataForm::Binary);
        prop_assert_eq!(back.truncated_at, None);
        prop_assert_eq!(back.log, l);
    }

    #[test]
    fn text_round_trip(l in log()) {
        let mut b = Vec::new();
        write_text(&l, &mut b).unwrap();
        let back = read(&b).unwrap();
        prop_assert_eq!(back.form, DataForm::Text);
        prop_assert_eq!(back.log, l);
    }

    #[test]
    fn truncation_keeps_every_complete_record(l in log(), cut in any::<prop::sample::Index>()) {
        let mut b = Vec::new();
        write_binary(&l, &mut b).unwrap();
        let key_len = b.windows(5).position(|w| w == b"*end\n").unwrap() + 5 + 13;
        let at = key_len + cut.index(b.len() - key_len + 1);
        let back = read(&b[..at]).unwrap();
        prop_assert!(back.log.records.len() <= l.records.len());
        prop_assert_eq!(&back.log.records[..], &l.records[..back.log.records.len()]);
        // A cut on a record boundary looks like a shorter file; a cut inside a
        // record is reported.
        prop_assert!(back.truncated_at.is_none() || back.log.records.len() < l.records.len());
    }

    #[test]
    fn mutated_files_never_panic(l in log(), flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8), text in any::<bool>()) {
        let mut b = Vec::new();
        if text { write_text(&l, &mut b).unwrap() } else { write_binary(&l, &mut b).unwrap() }
        for (i, v) in flips {
            let i = i.index(b.len());
            b[i] = v;
        }
        let _ = read(&b);
    }

    #[test]
    fn arbitrary_bytes_never_panic(b in prop::collection::vec(any::<u8>(), 0..300)) {
        let _ = read(&b);
        let mut with_key = b"*version\n1\n*logs\n0 5 S\n1 3 F\n*end\n".to_vec();
        with_key.extend_from_slice(&b);
        let _ = read(&with_key);
    }
}
