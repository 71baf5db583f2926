//! The context-stream probe's slow paths must stay too big for C2 to inline
//! (`FreqInlineSize`, 325 bytecodes by default): inlined, they bloat the
//! hot `CtxModel` methods and made Rhino's context runs ~20% slower
//! (BENCHMARKS.md, run time). Shrinking them below the limit is a
//! performance regression this test reports. Needs a JDK and ASM
//! (scripts/deps/jvm.apt).

use tracekit_jvm::classfile::parse_class;
use tracekit_jvm::tools::java_tools;

/// HotSpot's default `-XX:FreqInlineSize` on x86-64.
const FREQ_INLINE_SIZE: usize = 325;

#[test]
fn slow_paths_stay_above_the_inlining_limit() {
    let tools = java_tools().expect("Java tools (JDK 17 and libasm-java)");
    let path = tools.runtime_classes.join("tracekit/rt/CtxModel.class");
    let class = parse_class(&std::fs::read(&path).expect("CtxModel.class")).expect("parses");
    for name in ["guess", "methodFallback"] {
        let m = class
            .methods
            .iter()
            .find(|m| m.name == name)
            .unwrap_or_else(|| panic!("CtxModel.{name} is gone; keep a slow path C2 will not inline"));
        assert!(
            m.code.len() > FREQ_INLINE_SIZE,
            "CtxModel.{name} is {} bytecode bytes, at most {FREQ_INLINE_SIZE}: C2 may inline it into the hot path",
            m.code.len()
        );
    }
}
