//! Categorization profiles: per ISA and processor organization, named
//! instruction categories with an average cost in cycles and power, and the
//! mnemonics (per instruction type, ARM or Thumb) that belong to each.
//!
//! # Text format
//! Line based, `#` starts a comment line, fields separated by blanks:
//! ```text
//! # free comment lines (kept on export)
//! profile armv7-cortex-a8        # identifier used on the command line
//! isa armv7
//! organization Cortex-A8         # rest of the line, free text
//! freq_ghz 1                     # clock used for time and energy
//! default Undefined cycles=1 power_mw=100
//! category CondBranch cycles=3 power_mw=113
//! any beq bne blt                # mnemonics of any instruction type
//! thumb cbz cbnz                 # only when decoded as Thumb
//! arm  ...                       # only when decoded as ARM
//! category Load cycles=2 power_mw=140
//! any ldr* ldm* pop*             # trailing * = every mnemonic with that prefix
//! ```
//! A mnemonic is the first word of QEMU's disassembly, lower-cased, with
//! ARM width qualifiers (`.w`, `.n`) and x86 prefixes (`rep`, `lock`) removed
//! (see [`mnemonic_of`]). Lookup for an instruction of type `T`: an exact
//! entry for `T`, then an exact `any` entry, then the longest matching
//! prefix entry of type `T` or `any`; otherwise the default category.
//! Each (type, mnemonic) belongs to at most one category.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::Path;

use crate::error::{EmuError, Result};

/// Instruction type a mnemonic entry applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InsnType {
    /// Every instruction type (and ISAs with a single one).
    Any,
    /// 32-bit ARM encoding.
    Arm,
    /// Thumb / Thumb-2 encoding.
    Thumb,
}

impl InsnType {
    /// Keyword used in the text format.
    pub fn keyword(self) -> &'static str {
        match self {
            InsnType::Any => "any",
            InsnType::Arm => "arm",
            InsnType::Thumb => "thumb",
        }
    }

    /// Parses `any`, `arm` or `thumb`.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s.to_ascii_lowercase().as_str() {
            "any" => InsnType::Any,
            "arm" => InsnType::Arm,
            "thumb" => InsnType::Thumb,
            _ => return None,
        })
    }
}

/// One category: its cost and its mnemonics.
#[derive(Clone, Debug, PartialEq)]
pub struct Category {
    /// Name, one word (e.g. `CondBranch`).
    pub name: String,
    /// Average cycles per instruction of the category.
    pub cycles: f64,
    /// Average power while executing it, in milliwatts.
    pub power_mw: f64,
    /// Mnemonics (a trailing `*` marks a prefix) per instruction type.
    pub mnemonics: BTreeMap<InsnType, BTreeSet<String>>,
}

impl Category {
    fn new(name: &str, cycles: f64, power_mw: f64) -> Self {
        Self {
            name: name.to_owned(),
            cycles,
            power_mw,
            mnemonics: BTreeMap::new(),
        }
    }
}

/// A categorization profile for one ISA and processor organization.
#[derive(Clone, Debug, PartialEq)]
pub struct Profile {
    /// Identifier (`armv7-cortex-a8`).
    pub name: String,
    /// Instruction set (`armv7`, `mips32`, `aarch64`, `x86_64`).
    pub isa: String,
    /// Processor organization, free text (`Cortex-A8`).
    pub organization: String,
    /// Clock frequency in GHz used to turn cycles into time.
    pub freq_ghz: f64,
    /// Category of instructions no entry matches (`Undefined`).
    pub default: Category,
    /// Categories in file order.
    pub categories: Vec<Category>,
    /// Leading comment lines, without the `#`.
    pub notes: Vec<String>,
}

const BUILTIN: &[(&str, &str)] = &[
    ("armv7-cortex-a8", include_str!("../profiles/armv7-cortex-a8.profile")),
    ("armv7-cortex-a9", include_str!("../profiles/armv7-cortex-a9.profile")),
    ("mips32-generic", include_str!("../profiles/mips32-generic.profile")),
    (
        "aarch64-cortex-a53",
        include_str!("../profiles/aarch64-cortex-a53.profile"),
    ),
    (
        "aarch64-cortex-a72",
        include_str!("../profiles/aarch64-cortex-a72.profile"),
    ),
    ("x86_64-generic", include_str!("../profiles/x86_64-generic.profile")),
];

/// Names of the profiles shipped with tracekit.
pub fn builtin_names() -> impl Iterator<Item = &'static str> {
    BUILTIN.iter().map(|(n, _)| *n)
}

/// The shipped profile used when none is chosen, by QEMU target name.
pub fn default_profile_for(target: &str) -> Option<&'static str> {
    Some(match target {
        "arm" | "armeb" => "armv7-cortex-a8",
        "mips" | "mipsel" => "mips32-generic",
        "aarch64" | "aarch64_be" => "aarch64-cortex-a53",
        "x86_64" => "x86_64-generic",
        _ => return None,
    })
}

/// The mnemonic of a disassembled instruction, normalized for lookup.
pub fn mnemonic_of(target: &str, disas: &str) -> String {
    let mut words = disas.split_whitespace();
    let mut m = words.next().unwrap_or("").to_ascii_lowercase();
    if matches!(
        m.as_str(),
        "rep" | "repe" | "repz" | "repne" | "repnz" | "lock" | "notrack" | "bnd"
    ) {
        if let Some(next) = words.next() {
            m = next.to_ascii_lowercase();
        }
    }
    if target.starts_with("arm") {
        for suffix in [".w", ".n"] {
            if let Some(stripped) = m.strip_suffix(suffix) {
                m = stripped.to_owned();
            }
        }
    }
    m
}

fn valid_name(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "_-./+".contains(c))
}

fn valid_mnemonic(s: &str) -> bool {
    let body = s.strip_suffix('*').unwrap_or(s);
    (!body.is_empty() || s == "*")
        && body
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "._".contains(c))
}

fn parse_costs(origin: &Path, line: usize, words: &[&str]) -> Result<(f64, f64)> {
    let bad = |msg: String| EmuError::Parse {
        path: origin.to_owned(),
        line,
        msg,
    };
    let (mut cycles, mut power) = (None, None);
    for w in words {
        let (k, v) = w
            .split_once('=')
            .ok_or_else(|| bad(format!("expected key=value, found {w:?}")))?;
        let x: f64 = v
            .parse()
            .ok()
            .filter(|x: &f64| x.is_finite() && *x >= 0.0)
            .ok_or_else(|| bad(format!("{k} must be a non-negative number, not {v:?}")))?;
        match k {
            "cycles" => cycles = Some(x),
            "power_mw" => power = Some(x),
            _ => return Err(bad(format!("unknown cost {k:?} (expected cycles, power_mw)"))),
        }
    }
    Ok((
        cycles.ok_or_else(|| bad("missing cycles=".into()))?,
        power.ok_or_else(|| bad("missing power_mw=".into()))?,
    ))
}

impl Profile {
    /// A built-in profile by name.
    pub fn builtin(name: &str) -> Option<Profile> {
        let (_, text) = BUILTIN.iter().find(|(n, _)| *n == name)?;
        Some(Profile::parse(Path::new(&format!("<builtin {name}>")), text).expect("built-in profiles parse"))
    }

    /// A built-in profile by name, or else a profile file.
    pub fn load(spec: &str) -> Result<Profile> {
        if let Some(p) = Profile::builtin(spec) {
            return Ok(p);
        }
        let path = Path::new(spec);
        let text = tracekit_safeio::read_text(path).map_err(|e| {
            if e.kind == std::io::ErrorKind::NotFound {
                let known: Vec<_> = builtin_names().collect();
                EmuError::Invalid(format!(
                    "no profile {spec:?}: not a file and not a built-in ({})",
                    known.join(", ")
                ))
            } else {
                EmuError::from(e)
            }
        })?;
        Profile::parse(path, &text)
    }

    /// Parses the text format; `origin` names the source in errors.
    pub fn parse(origin: &Path, text: &str) -> Result<Profile> {
        let bad = |line: usize, msg: String| EmuError::Parse {
            path: origin.to_owned(),
            line,
            msg,
        };
        let mut p = Profile {
            name: String::new(),
            isa: String::new(),
            organization: String::new(),
            freq_ghz: 0.0,
            default: Category::new("Undefined", 1.0, 0.0),
            categories: Vec::new(),
            notes: Vec::new(),
        };
        let mut seen_default = false;
        let mut owner: HashMap<(InsnType, String), String> = HashMap::new();
        let mut started = false;
        for (i, raw) in text.lines().enumerate() {
            let no = i + 1;
            let line = raw.split_once('#').map_or(raw, |(a, _)| a).trim();
            if line.is_empty() {
                if !started {
                    if let Some(note) = raw.trim().strip_prefix('#') {
                        p.notes.push(note.strip_prefix(' ').unwrap_or(note).to_owned());
                    }
                }
                continue;
            }
            started = true;
            let words: Vec<&str> = line.split_whitespace().collect();
            let one = |what: &str| -> Result<String> {
                match words.len() {
                    2 => Ok(words[1].to_owned()),
                    _ => Err(bad(no, format!("expected '{what} VALUE'"))),
                }
            };
            match words[0] {
                "profile" => {
                    p.name = one("profile")?;
                    // The name becomes a file name in run directories.
                    if !valid_name(&p.name) || p.name.contains('/') || p.name.starts_with('.') {
                        return Err(bad(no, format!("bad profile name {:?}", p.name)));
                    }
                }
                "isa" => p.isa = one("isa")?,
                "organization" => p.organization = line["organization".len()..].trim().to_owned(),
                "freq_ghz" => {
                    p.freq_ghz = one("freq_ghz")?
                        .parse()
                        .ok()
                        .filter(|f: &f64| f.is_finite() && *f > 0.0)
                        .ok_or_else(|| bad(no, "freq_ghz must be a positive number".into()))?
                }
                "default" | "category" => {
                    let name = words
                        .get(1)
                        .ok_or_else(|| bad(no, format!("{} needs a name", words[0])))?;
                    if !valid_name(name) {
                        return Err(bad(no, format!("bad category name {name:?}")));
                    }
                    let (cycles, power) = parse_costs(origin, no, &words[2..])?;
                    let cat = Category::new(name, cycles, power);
                    let clash =
                        p.categories.iter().any(|c| c.name == *name) || (seen_default && p.default.name == *name);
                    if clash {
                        return Err(bad(no, format!("category {name:?} defined twice")));
                    }
                    if words[0] == "default" {
                        if seen_default {
                            return Err(bad(no, "second default category".into()));
                        }
                        seen_default = true;
                        p.default = cat;
                    } else {
                        p.categories.push(cat);
                    }
                }
                kw => {
                    let ty = InsnType::parse(kw).ok_or_else(|| bad(no, format!("unknown keyword {kw:?}")))?;
                    let cat = p
                        .categories
                        .last_mut()
                        .ok_or_else(|| bad(no, "mnemonics before any 'category' line".into()))?;
                    for m in &words[1..] {
                        let m = m.to_ascii_lowercase();
                        if !valid_mnemonic(&m) {
                            return Err(bad(no, format!("bad mnemonic {m:?}")));
                        }
                        if let Some(other) = owner.insert((ty, m.clone()), cat.name.clone()) {
                            return Err(bad(no, format!("{kw} {m} is already in category {other}")));
                        }
                        cat.mnemonics.entry(ty).or_default().insert(m);
                    }
                }
            }
        }
        let missing = |what: &str| bad(text.lines().count().max(1), format!("missing '{what}' line"));
        if p.name.is_empty() {
            return Err(missing("profile"));
        }
        if p.isa.is_empty() {
            return Err(missing("isa"));
        }
        if p.freq_ghz == 0.0 {
            return Err(missing("freq_ghz"));
        }
        if !seen_default {
            return Err(missing("default"));
        }
        Ok(p)
    }

    /// Writes the profile in the text format (parses back to an equal one).
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        for n in &self.notes {
            let _ = writeln!(s, "{}", format!("# {n}").trim_end());
        }
        let _ = writeln!(s, "profile {}", self.name);
        let _ = writeln!(s, "isa {}", self.isa);
        if !self.organization.is_empty() {
            let _ = writeln!(s, "organization {}", self.organization);
        }
        let _ = writeln!(s, "freq_ghz {}", self.freq_ghz);
        let d = &self.default;
        let _ = writeln!(s, "default {} cycles={} power_mw={}", d.name, d.cycles, d.power_mw);
        for c in &self.categories {
            let _ = writeln!(s, "\ncategory {} cycles={} power_mw={}", c.name, c.cycles, c.power_mw);
            for (ty, set) in &c.mnemonics {
                let mut line = String::from(ty.keyword());
                for m in set {
                    if line.len() + m.len() > 76 {
                        let _ = writeln!(s, "{line}");
                        line = String::from(ty.keyword());
                    }
                    line.push(' ');
                    line.push_str(m);
                }
                let _ = writeln!(s, "{line}");
            }
        }
        s
    }

    /// Index of a category by name (`None` for the default or unknown).
    pub fn category_index(&self, name: &str) -> Option<usize> {
        self.categories.iter().position(|c| c.name == name)
    }

    /// Names of all categories, default last.
    pub fn category_names(&self) -> Vec<&str> {
        self.categories
            .iter()
            .map(|c| c.name.as_str())
            .chain([self.default.name.as_str()])
            .collect()
    }

    /// Category by name, the default included.
    pub fn category(&self, name: &str) -> Option<&Category> {
        self.categories
            .iter()
            .find(|c| c.name == name)
            .or((self.default.name == name).then_some(&self.default))
    }

    /// Adds an empty category.
    pub fn create_category(&mut self, name: &str, cycles: f64, power_mw: f64) -> Result<()> {
        if !valid_name(name) {
            return Err(EmuError::Invalid(format!("bad category name {name:?} (one word)")));
        }
        if self.category(name).is_some() {
            return Err(EmuError::Invalid(format!("category {name:?} already exists")));
        }
        if !(cycles.is_finite() && cycles >= 0.0 && power_mw.is_finite() && power_mw >= 0.0) {
            return Err(EmuError::Invalid(
                "cycles and power must be non-negative numbers".into(),
            ));
        }
        self.categories.push(Category::new(name, cycles, power_mw));
        Ok(())
    }

    /// Moves `mnemonic` of type `ty` into `category` (the default category's
    /// name removes it from every category).
    pub fn assign(&mut self, ty: InsnType, mnemonic: &str, category: &str) -> Result<()> {
        let m = mnemonic.to_ascii_lowercase();
        if !valid_mnemonic(&m) {
            return Err(EmuError::Invalid(format!("bad mnemonic {mnemonic:?}")));
        }
        let target = if category == self.default.name {
            None
        } else {
            Some(self.category_index(category).ok_or_else(|| {
                EmuError::Invalid(format!(
                    "no category {category:?} in profile {} (have: {})",
                    self.name,
                    self.category_names().join(", ")
                ))
            })?)
        };
        for c in &mut self.categories {
            if let Some(set) = c.mnemonics.get_mut(&ty) {
                set.remove(&m);
                if set.is_empty() {
                    c.mnemonics.remove(&ty);
                }
            }
        }
        if let Some(i) = target {
            self.categories[i].mnemonics.entry(ty).or_default().insert(m);
        }
        Ok(())
    }

    /// A fast lookup structure for classifying many instructions.
    pub fn classifier(&self) -> Classifier<'_> {
        let mut exact = HashMap::new();
        let mut prefixes = Vec::new();
        for (i, c) in self.categories.iter().enumerate() {
            for (ty, set) in &c.mnemonics {
                for m in set {
                    match m.strip_suffix('*') {
                        Some(prefix) => prefixes.push((*ty, prefix.to_owned(), i)),
                        None => {
                            exact.insert((*ty, m.clone()), i);
                        }
                    }
                }
            }
        }
        prefixes.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.1.cmp(&b.1)));
        Classifier {
            profile: self,
            exact,
            prefixes,
        }
    }
}

/// Maps (instruction type, mnemonic) to a category; see [`Profile::classifier`].
pub struct Classifier<'a> {
    profile: &'a Profile,
    exact: HashMap<(InsnType, String), usize>,
    prefixes: Vec<(InsnType, String, usize)>,
}

impl Classifier<'_> {
    /// Category index for an instruction, `None` meaning the default.
    pub fn classify(&self, ty: InsnType, mnemonic: &str) -> Option<usize> {
        if ty != InsnType::Any {
            if let Some(&i) = self.exact.get(&(ty, mnemonic.to_owned())) {
                return Some(i);
            }
        }
        if let Some(&i) = self.exact.get(&(InsnType::Any, mnemonic.to_owned())) {
            return Some(i);
        }
        self.prefixes
            .iter()
            .find(|(t, p, _)| (*t == ty || *t == InsnType::Any) && mnemonic.starts_with(p.as_str()))
            .map(|(_, _, i)| *i)
    }

    /// Category for an instruction, the default included.
    pub fn category(&self, ty: InsnType, mnemonic: &str) -> &Category {
        match self.classify(ty, mnemonic) {
            Some(i) => &self.profile.categories[i],
            None => &self.profile.default,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "# demo\nprofile demo\nisa armv7\norganization Cortex-A8 (demo)\nfreq_ghz 1\n\
        default Undefined cycles=1 power_mw=100\ncategory CondBranch cycles=3 power_mw=113\n\
        any beq bne\nthumb cbz\ncategory Load cycles=2 power_mw=140\nany ldr*\narm ldrex\n";

    fn demo() -> Profile {
        Profile::parse(Path::new("demo.profile"), TEXT).unwrap()
    }

    #[test]
    fn parses_and_round_trips() {
        let p = demo();
        assert_eq!(p.organization, "Cortex-A8 (demo)");
        assert_eq!(p.categories.len(), 2);
        assert_eq!(p.categories[0].cycles, 3.0);
        let again = Profile::parse(Path::new("x"), &p.to_text()).unwrap();
        assert_eq!(again, p);
    }

    #[test]
    fn lookup_prefers_type_then_exact_then_longest_prefix() {
        let mut p = demo();
        p.create_category("Excl", 5.0, 1.0).unwrap();
        p.assign(InsnType::Any, "ldrex*", "Excl").unwrap();
        let c = p.classifier();
        assert_eq!(c.category(InsnType::Thumb, "cbz").name, "CondBranch");
        assert_eq!(c.category(InsnType::Arm, "cbz").name, "Undefined");
        assert_eq!(c.category(InsnType::Thumb, "ldrb").name, "Load");
        assert_eq!(c.category(InsnType::Thumb, "ldrexd").name, "Excl");
        assert_eq!(c.category(InsnType::Arm, "ldrex").name, "Load");
        assert_eq!(c.category(InsnType::Any, "add").name, "Undefined");
    }

    #[test]
    fn assign_moves_and_unassigns() {
        let mut p = demo();
        p.assign(InsnType::Any, "beq", "Load").unwrap();
        assert_eq!(p.classifier().category(InsnType::Any, "beq").name, "Load");
        p.assign(InsnType::Any, "beq", "Undefined").unwrap();
        assert_eq!(p.classifier().category(InsnType::Any, "beq").name, "Undefined");
        assert!(p.assign(InsnType::Any, "beq", "Nope").is_err());
        assert!(p.create_category("Load", 1.0, 1.0).is_err());
    }

    #[test]
    fn errors_name_the_line() {
        let dup = TEXT.replace("arm ldrex", "any beq");
        let e = Profile::parse(Path::new("p.profile"), &dup).unwrap_err().to_string();
        assert!(
            e.contains("p.profile: line 12") && e.contains("already in category CondBranch"),
            "{e}"
        );
        let e = Profile::parse(Path::new("p"), "profile x\nbogus 1\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 2"), "{e}");
        let e = Profile::parse(Path::new("p"), "profile x\nisa a\nfreq_ghz 1\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("missing 'default'"), "{e}");
    }

    #[test]
    fn mnemonics_are_normalized() {
        assert_eq!(mnemonic_of("arm", "ADD.W r0, r1"), "add");
        assert_eq!(mnemonic_of("mipsel", "cvt.d.w\t$f0,$f0"), "cvt.d.w");
        assert_eq!(mnemonic_of("x86_64", "rep stosq %rax, (%rdi)"), "stosq");
        assert_eq!(mnemonic_of("x86_64", ""), "");
    }

    #[test]
    fn builtins_parse_and_cover_each_target() {
        for name in builtin_names() {
            let p = Profile::builtin(name).unwrap();
            assert_eq!(p.name, name);
        }
        for t in ["arm", "mipsel", "aarch64", "x86_64"] {
            assert!(Profile::builtin(default_profile_for(t).unwrap()).is_some());
        }
    }

    proptest::proptest! {
        #[test]
        fn mutated_profiles_never_panic(pos in 0usize..TEXT.len(), byte in proptest::prelude::any::<u8>()) {
            let mut bytes = TEXT.as_bytes().to_vec();
            bytes[pos] = byte;
            let _ = Profile::parse(Path::new("x"), &String::from_utf8_lossy(&bytes));
        }
    }
}
