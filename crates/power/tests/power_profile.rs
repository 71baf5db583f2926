//! `power_profile.xml`: the real AOSP profile of the Pixel 4 reads with
//! every cluster's speeds matching its currents; the corpus in
//! `tests/corpus/power_profile/` is replayed (`ok-*` read, `err-*` fail
//! naming the file and a line inside it); proptest mutates and cuts it
//! (never a panic, errors always located) and checks that written profiles
//! read back unchanged.

use proptest::prelude::*;
use std::path::Path;
use tracekit_model::power_profile::PowerProfile;
use tracekit_power::{read_profile_bytes, read_profile_path, sniff_profile, write_profile};

fn corpus() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/power_profile");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect()
}

fn check(bytes: &[u8]) {
    let r = std::panic::catch_unwind(|| read_profile_bytes(bytes, "fuzzed.xml")).expect("reader panicked");
    match r {
        Ok(p) => assert!(p.profile.entries.iter().all(|e| match &e.value {
            tracekit_model::power_profile::ProfileValue::Item(v) => v.is_finite(),
            tracekit_model::power_profile::ProfileValue::Array(v) => v.iter().all(|x| x.is_finite()),
        })),
        Err(e) => {
            assert!(e.to_string().starts_with("fuzzed.xml"), "{e}");
            if let (Some(line), Some(offset)) = (e.line(), e.offset()) {
                let lines = bytes.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
                assert!(line >= 1 && line <= lines, "line {line} of {lines}");
                assert!(offset <= bytes.len() as u64);
            }
        }
    }
}

#[test]
fn the_pixel_4_profile_reads() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/pixel4_flame_power_profile.xml");
    assert!(sniff_profile(&std::fs::read(&path).unwrap()));
    let r = read_profile_path(&path).unwrap();
    let p = &r.profile;
    assert!(r.skipped.is_empty(), "{:?}", r.skipped);
    assert_eq!(p.device.as_deref(), Some("Android"));
    assert_eq!(p.array("cpu.clusters.cores"), Some(vec![4.0, 3.0, 1.0]));
    for k in 0..3 {
        let speeds = p.array(&format!("cpu.core_speeds.cluster{k}")).unwrap();
        let power = p.array(&format!("cpu.core_power.cluster{k}")).unwrap();
        assert_eq!(speeds.len(), power.len(), "cluster {k}");
        assert!(speeds.windows(2).all(|w| w[0] < w[1]), "speeds rise");
        assert!(power.windows(2).all(|w| w[0] <= w[1]), "currents rise with speed");
    }
    assert_eq!(p.array("cpu.core_speeds.cluster2").unwrap().last(), Some(&2_841_600.0));
    assert_eq!(p.array("cpu.core_power.cluster0").unwrap()[0], 39.44);
    assert_eq!((p.item("screen.on"), p.item("screen.full")), (Some(94.0), Some(385.0)));
    assert_eq!(p.item("battery.capacity"), Some(2800.0));
    assert_eq!(p.item("wifi.controller.voltage"), Some(3700.0));
    assert_eq!(p.array("modem.controller.tx").unwrap().len(), 5);
    // Written back, it reads to the same profile.
    let text = write_profile(p, &[], &|_| None);
    assert_eq!(&read_profile_bytes(text.as_bytes(), "w.xml").unwrap().profile, p);
}

#[test]
fn corpus_files_behave() {
    let files = corpus();
    assert!(files.len() >= 7);
    for (name, bytes) in &files {
        check(bytes);
        let r = read_profile_bytes(bytes, name);
        if name.starts_with("ok-") {
            let r = r.unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(!r.profile.entries.is_empty(), "{name}");
        } else {
            let e = r.expect_err(name);
            assert!(e.to_string().starts_with(name.as_str()), "{e}");
            assert!(e.line().is_some(), "{name}: {e}");
        }
    }
    let modem = read_profile_bytes(&files.iter().find(|f| f.0 == "ok-modem-block.xml").unwrap().1, "m").unwrap();
    assert_eq!(modem.skipped, vec![("modem".to_owned(), 1)]);
}

#[test]
fn non_regular_files_are_refused() {
    let e = read_profile_path(Path::new("/dev/zero")).unwrap_err();
    assert!(e.to_string().contains("not a regular file"), "{e}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn mutated_corpus_never_panics(pick in 0usize..7, at in any::<prop::sample::Index>(), byte in any::<u8>(), cut in any::<prop::sample::Index>()) {
        let files = corpus();
        let (_, bytes) = &files[pick % files.len()];
        let mut b = bytes.clone();
        let i = at.index(b.len());
        b[i] = byte;
        check(&b);
        let c = cut.index(bytes.len() + 1);
        check(&bytes[..c]);
    }

    #[test]
    fn written_profiles_read_back(
        items in prop::collection::vec(("[a-z][a-z0-9._<&\"]{0,12}", -1e12f64..1e12), 0..6),
        arrays in prop::collection::vec(("[a-z][a-z.]{0,8}", prop::collection::vec(any::<f64>().prop_filter("finite", |v| v.is_finite()), 0..5)), 0..4),
    ) {
        let mut p = PowerProfile::new("Android");
        for (n, v) in items { p.set_item(&format!("i.{n}"), v); }
        for (n, v) in arrays { p.set_array(&format!("a.{n}"), v); }
        let text = write_profile(&p, &["round trip".into()], &|n| Some(format!("note on {n}")));
        let back = read_profile_bytes(text.as_bytes(), "w.xml").unwrap();
        prop_assert_eq!(back.profile, p);
    }
}
