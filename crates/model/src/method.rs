//! The method/function table.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Index of a method in a session's [`MethodTable`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct MethodId(pub u32);

/// A method or function that call events refer to.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Method {
    /// Class (Java: `com/example/Foo`); empty for free functions.
    pub class: String,
    /// Method or function name (demangled for native code).
    pub name: String,
    /// Signature (Java descriptor such as `(I)V`; empty when unknown).
    pub signature: String,
    /// Source file, when known.
    pub source_file: Option<String>,
    /// Line of the declaration in the source file, when known.
    pub line: Option<u32>,
    /// Module (executable or shared object) for native code.
    pub module: Option<String>,
    /// The id or address the source file used for this method.
    pub address: Option<u64>,
}

impl Method {
    /// A method with class, name and signature; the rest unknown.
    pub fn new(class: impl Into<String>, name: impl Into<String>, signature: impl Into<String>) -> Method {
        Method {
            class: class.into(),
            name: name.into(),
            signature: signature.into(),
            source_file: None,
            line: None,
            module: None,
            address: None,
        }
    }

    /// `Class.name` with `/` turned into `.`, or just `name` when there is no class.
    pub fn qualified_name(&self) -> String {
        if self.class.is_empty() {
            self.name.clone()
        } else {
            format!("{}.{}", self.class.replace('/', "."), self.name)
        }
    }

    /// `Class.name signature`, the way Traceview lists methods.
    pub fn display_name(&self) -> String {
        if self.signature.is_empty() {
            self.qualified_name()
        } else {
            format!("{} {}", self.qualified_name(), self.signature)
        }
    }
}

/// All methods of a session, each stored once.
#[derive(Debug, Clone, Default)]
pub struct MethodTable {
    methods: Vec<Method>,
    index: HashMap<(String, String, String), MethodId>,
}

impl MethodTable {
    /// An empty table.
    pub fn new() -> MethodTable {
        MethodTable::default()
    }

    /// Returns the id of a method equal in class, name and signature to `m`,
    /// adding `m` if there is none.
    pub fn intern(&mut self, m: Method) -> MethodId {
        let key = (m.class.clone(), m.name.clone(), m.signature.clone());
        if let Some(&id) = self.index.get(&key) {
            return id;
        }
        let id = MethodId(self.methods.len() as u32);
        self.methods.push(m);
        self.index.insert(key, id);
        id
    }

    /// Adds `m` as a new entry even if an equal one exists (file formats may
    /// list one method under two ids).
    pub fn push(&mut self, m: Method) -> MethodId {
        let id = MethodId(self.methods.len() as u32);
        self.index
            .entry((m.class.clone(), m.name.clone(), m.signature.clone()))
            .or_insert(id);
        self.methods.push(m);
        id
    }

    /// The method with this id. Panics on an id from another table.
    pub fn get(&self, id: MethodId) -> &Method {
        &self.methods[id.0 as usize]
    }

    /// Number of methods.
    pub fn len(&self) -> usize {
        self.methods.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.methods.is_empty()
    }

    /// Each method's place (indexed by id) when the table is sorted by
    /// class, name, signature, module, source file, line and address, ties
    /// by id: an order of methods that does not depend on the order a
    /// reader met them in, for reports to break ties with.
    pub fn ranks(&self) -> Vec<u32> {
        fn key(m: &Method) -> impl Ord + '_ {
            (
                &m.class,
                &m.name,
                &m.signature,
                &m.module,
                &m.source_file,
                m.line,
                m.address,
            )
        }
        let mut ids: Vec<u32> = (0..self.methods.len() as u32).collect();
        ids.sort_by(|&a, &b| {
            key(&self.methods[a as usize])
                .cmp(&key(&self.methods[b as usize]))
                .then(a.cmp(&b))
        });
        let mut ranks = vec![0; ids.len()];
        for (place, id) in ids.into_iter().enumerate() {
            ranks[id as usize] = place as u32;
        }
        ranks
    }

    /// Iterates over `(id, method)` pairs.
    pub fn iter(&self) -> impl Iterator<Item = (MethodId, &Method)> {
        self.methods.iter().enumerate().map(|(i, m)| (MethodId(i as u32), m))
    }

    /// Ids of the methods a user means by `pattern`: an exact method name
    /// (`brb`), `Class.name` or `pkg/Class.name` (dots or slashes), or the
    /// full display name with signature.
    pub fn find(&self, pattern: &str) -> Vec<MethodId> {
        let p = pattern.trim();
        let dotted = p.replace('/', ".");
        self.iter()
            .filter(|(_, m)| {
                if m.name == p {
                    return true;
                }
                let q = m.qualified_name();
                q == dotted || q.ends_with(&format!(".{dotted}")) && dotted.contains('.') || m.display_name() == dotted
            })
            .map(|(id, _)| id)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_and_lookup() {
        let mut t = MethodTable::new();
        let a = t.intern(Method::new("com/ex/Logger", "brb", "()V"));
        let b = t.intern(Method::new("com/ex/Logger", "brb", "()V"));
        let c = t.intern(Method::new("com/ex/View", "draw", "(I)V"));
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(t.find("brb"), vec![a]);
        assert_eq!(t.find("Logger.brb"), vec![a]);
        assert_eq!(t.find("com/ex/View.draw"), vec![c]);
        assert_eq!(t.find("com.ex.View.draw (I)V"), vec![c]);
        assert!(t.find("ex.draw").is_empty());
        assert!(t.find("nothing").is_empty());
        assert_eq!(t.get(c).display_name(), "com.ex.View.draw (I)V");
    }
}
