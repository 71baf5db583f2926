//! The SQL standard library: views over the schema, one `.sql` file each
//! (`crates/sql/stdlib/`), written in the SQL that DataFusion and Spark
//! share so the fleet jobs run the very same text.

/// `(view name, its SELECT)`, in the order they must be created (a view
/// may use the ones before it).
pub const STDLIB: &[(&str, &str)] = &[
    ("method_profile", include_str!("../stdlib/method_profile.sql")),
    (
        "fleet_method_profile",
        include_str!("../stdlib/fleet_method_profile.sql"),
    ),
    ("brb_occurrence", include_str!("../stdlib/brb_occurrence.sql")),
    ("context_span", include_str!("../stdlib/context_span.sql")),
    ("occurrence_context", include_str!("../stdlib/occurrence_context.sql")),
];
