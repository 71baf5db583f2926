//! Subcommands, one module each, and what they share: the grouped
//! `tracekit --help`, the exit statuses, and how messages are printed.

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use deferred::Deferred;

mod calltree;
mod charge;
mod choices;
mod context;
mod deferred;
mod demo;
mod diff;
mod emu;
mod energy;
mod example;
mod generate;
mod info;
mod input;
mod paths;
mod paths_jvm;
mod paths_smali;
mod power;
mod power_model;
mod problems;
mod profile;
mod report;
mod ui;

mod convert;
#[cfg(feature = "sql")]
mod export;
mod record;
mod replay;
mod seqdiag;
#[cfg(feature = "sql")]
mod sql;
#[cfg(feature = "sql")]
mod sql_inputs;
mod version;

/// `tracekit --help`'s closing paragraph: the exit statuses.
pub const EXIT_STATUS_HELP: &str = "\
Exit status:
  0  success
  1  error: bad input, an analysis that cannot run, a failed write (a line
     starting `tracekit: error:` says why)
  2  usage error: unknown option, missing or invalid argument
  3  `diff --fail-on-regression`: a row regressed
  `record` and `emu run` end with the program's status instead: N when it
  exited with N, 128+S when signal S killed it (as shells report it).";

/// What `tracekit sql` and `tracekit export` say in a build without them.
const SQL_NOT_BUILT: &str =
    "this tracekit was built without SQL (`sql` and `export` add Apache DataFusion to the build); \
build them with: cargo install --locked --path crates/cli --features sql";

/// Execution tracing and profiling with context.
#[derive(Debug, Parser)]
#[command(name = "tracekit", version, about, long_about = None, after_help = EXIT_STATUS_HELP)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
    /// No progress bars and no notes (warnings and errors are still printed).
    #[arg(long, global = true)]
    quiet: bool,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Generate the bundled example session and analyse it (the main job).
    Demo(Deferred<demo::Args>),
    /// Write the bundled example session (NAME.trace + NAME.clog).
    Example(Deferred<example::Args>),
    /// Summarise a session: threads, methods, clocks, context items, repairs.
    Info(Deferred<info::Args>),
    /// Traceview's profile: inclusive/exclusive time per method on each clock.
    Profile(Deferred<profile::Args>),
    /// dmtracedump's call tree with inclusive/exclusive times.
    Calltree(Deferred<calltree::Args>),
    /// The value of every context item at an instant.
    Context(Deferred<context::Args>),
    /// Occurrences of a problem (BRB, or a method under a context condition) and ranked context hints.
    Problems(Deferred<problems::Args>),
    /// List every call of a trace, indented, with durations.
    Replay(Deferred<replay::Args>),
    /// Energy, mean power and charge of a capture, a window, a slice's instances or a condition's intervals.
    Energy(Deferred<energy::Args>),
    /// Compare runs: which methods, paths or categories regressed, with confidence; differential flame graph.
    Diff(Deferred<diff::Args>),
    /// Write the self-contained HTML timeline viewer (report INPUT --html -o FILE).
    Report(Deferred<report::Args>),
    /// Serve the timeline viewer on 127.0.0.1 (for traces too large for one file).
    Ui(Deferred<ui::Args>),
    /// Convert any trace for another viewer: Perfetto, Chrome JSON, speedscope, Firefox, folded, Android, object trace.
    Convert(Deferred<convert::Args>),
    /// SQL over traces or a Parquet dataset of many sessions (-q QUERY, -f FILE, or a prompt).
    #[cfg(feature = "sql")]
    Sql(Deferred<sql::Args>),
    /// Write sessions into a Parquet dataset partitioned by session (export --parquet DIR INPUT...).
    #[cfg(feature = "sql")]
    Export(Deferred<export::Args>),
    /// Draw the UML sequence diagram of an object trace or recording; report deadlocks.
    Seqdiag(Deferred<seqdiag::Args>),
    /// Record a native program (built with -finstrument-functions or using the tracekit C API).
    Record(Deferred<record::Args>),
    /// Sample battery, RAPL and hwmon power on Linux (and write the phone-side sampler script).
    Power(Deferred<power::Args>),
    /// Path profiling: encode and decode paths with BLPP, PAP or AdapTracer; Java programs.
    Paths(Deferred<paths::Args>),
    /// Instruction profiling under QEMU's user-mode emulator.
    Emu(Deferred<emu::Args>),
    /// Print version information.
    Version(Deferred<version::Args>),
    /// The context sampler process that `record` starts (internal).
    #[command(hide = true)]
    ContextSampler(Deferred<record::SamplerArgs>),
    /// Shell completions, manual pages and the guide's option reference (for packagers).
    #[command(hide = true)]
    Generate(Deferred<generate::Args>),
}

/// The views and exports (SQL's commands only when built with them).
/// What clap's own `help` subcommand says of itself.
const HELP_ABOUT: &str = "Print this message or the help of the given subcommand(s)";

const VIEWS: &[&str] = if cfg!(feature = "sql") {
    &["report", "ui", "convert", "seqdiag", "sql", "export"]
} else {
    &["report", "ui", "convert", "seqdiag"]
};

/// `tracekit --help` lists the commands by area, in this order.
const GROUPS: &[(&str, &[&str])] = &[
    ("Get started", &["demo", "example"]),
    (
        "Read and analyse traces",
        &[
            "info", "profile", "calltree", "context", "problems", "replay", "energy", "diff",
        ],
    ),
    ("Views and export", VIEWS),
    ("Record", &["record", "power"]),
    ("Path profiling", &["paths"]),
    ("Emulator", &["emu"]),
    ("Other", &["version", "help"]),
];

/// The command line with `--help` grouped by area (clap lists subcommands
/// in one block; the template lists them under [`GROUPS`] instead).
pub fn command() -> clap::Command {
    // Not built here: building runs every subcommand's deferred arguments
    // ([`Deferred`]), most of the start-up time of a command that uses one.
    let cmd = Cli::command();
    let width = cmd.get_subcommands().map(|s| s.get_name().len()).max().unwrap_or(8) + 2;
    let mut listing = String::new();
    for (heading, names) in GROUPS {
        listing.push_str(&format!("{heading}:\n"));
        for name in *names {
            let about = match cmd.find_subcommand(name) {
                Some(s) => s.get_about().map(|a| a.to_string()).unwrap_or_default(),
                // The one clap adds when the command is built.
                None if *name == "help" => HELP_ABOUT.to_owned(),
                None => String::new(),
            };
            listing.push_str(&format!("  {name:<width$}{about}\n"));
        }
        listing.push('\n');
    }
    cmd.help_template(format!(
        "{{about-with-newline}}\n{{usage-heading}} {{usage}}\n\n{listing}Options:\n{{options}}{{after-help}}"
    ))
}

/// Parses the process's arguments; usage errors end the process with
/// status 2 and a `tracekit: error:` line, `--help` and `--version` with 0.
pub fn parse() -> Cli {
    let parsed = command().try_get_matches().and_then(|m| Cli::from_arg_matches(&m));
    match parsed {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind::*;
            match e.kind() {
                DisplayHelp | DisplayVersion => {
                    let _ = e.print();
                    std::process::exit(0);
                }
                DisplayHelpOnMissingArgumentOrSubcommand => {
                    // `tracekit` (or `tracekit emu`) alone: the help, as a usage error.
                    let _ = e.print();
                    std::process::exit(2);
                }
                _ => {
                    let text = e.render().to_string();
                    let text = text.strip_prefix("error: ").unwrap_or(&text);
                    eprint!("tracekit: error: {}", tracekit_safeio::terminal_lines(text));
                    if !cfg!(feature = "sql") && matches!(e.kind(), InvalidSubcommand) {
                        let asked = std::env::args().skip(1).find(|a| !a.starts_with('-'));
                        if matches!(asked.as_deref(), Some("sql" | "export")) {
                            eprintln!("tracekit: note: {SQL_NOT_BUILT}");
                        }
                    }
                    std::process::exit(2);
                }
            }
        }
    }
}

/// Runs the chosen subcommand.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    crate::progress::set_quiet(cli.quiet);
    match cli.command {
        Command::Demo(a) => demo::run(a.0),
        Command::Example(a) => example::run(a.0),
        Command::Info(a) => info::run(a.0),
        Command::Profile(a) => profile::run(a.0),
        Command::Calltree(a) => calltree::run(a.0),
        Command::Context(a) => context::run(a.0),
        Command::Problems(a) => problems::run(a.0),
        Command::Energy(a) => energy::run(a.0),
        Command::Diff(a) => diff::run(a.0),
        Command::Power(a) => power::run(a.0),
        Command::Replay(a) => replay::run(a.0),
        Command::Report(a) => report::run(a.0),
        Command::Ui(a) => ui::run(a.0),
        Command::Convert(a) => convert::run(a.0),
        Command::Seqdiag(a) => seqdiag::run(a.0),
        #[cfg(feature = "sql")]
        Command::Sql(a) => sql::run(a.0),
        #[cfg(feature = "sql")]
        Command::Export(a) => export::run(a.0),
        Command::Record(a) => record::run(a.0),
        Command::Paths(a) => paths::run(a.0),
        Command::Emu(a) => emu::run(a.0),
        Command::Version(a) => version::run(a.0),
        Command::ContextSampler(a) => record::run_sampler(a.0),
        Command::Generate(a) => generate::run(a.0),
    }
}

/// Prints `tracekit: note: …` on stderr (control characters escaped).
/// Nothing with `--quiet`; printed above any progress bar.
pub fn note(msg: impl std::fmt::Display) {
    if crate::progress::quiet() {
        return;
    }
    let text = tracekit_safeio::terminal_lines(&msg.to_string()).into_owned();
    crate::progress::above(|| eprintln!("tracekit: note: {text}"));
}

/// Prints `tracekit: warning: …` on stderr (control characters escaped).
pub fn warning(msg: impl std::fmt::Display) {
    let text = tracekit_safeio::terminal_lines(&msg.to_string()).into_owned();
    crate::progress::above(|| eprintln!("tracekit: warning: {text}"));
}

/// The name of signal `sig` (`SIGSEGV`), or `signal N`.
pub fn signal_name(sig: i32) -> String {
    const NAMES: &[(i32, &str)] = &[
        (libc::SIGHUP, "SIGHUP"),
        (libc::SIGINT, "SIGINT"),
        (libc::SIGQUIT, "SIGQUIT"),
        (libc::SIGILL, "SIGILL"),
        (libc::SIGTRAP, "SIGTRAP"),
        (libc::SIGABRT, "SIGABRT"),
        (libc::SIGBUS, "SIGBUS"),
        (libc::SIGFPE, "SIGFPE"),
        (libc::SIGKILL, "SIGKILL"),
        (libc::SIGUSR1, "SIGUSR1"),
        (libc::SIGSEGV, "SIGSEGV"),
        (libc::SIGUSR2, "SIGUSR2"),
        (libc::SIGPIPE, "SIGPIPE"),
        (libc::SIGALRM, "SIGALRM"),
        (libc::SIGTERM, "SIGTERM"),
        (libc::SIGXCPU, "SIGXCPU"),
        (libc::SIGXFSZ, "SIGXFSZ"),
        (libc::SIGSYS, "SIGSYS"),
    ];
    NAMES
        .iter()
        .find(|(n, _)| *n == sig)
        .map_or_else(|| format!("signal {sig}"), |(_, name)| (*name).to_owned())
}

/// Ends tracekit with the status of the program it ran (`record`, `emu
/// run`) and says how the program ended: returns for a clean exit, else
/// exits with N (exit status N) or 128+S (killed by signal S).
pub fn exit_like_program(exit_code: Option<i32>, signal: Option<i32>, kept: &str) {
    match (exit_code, signal) {
        (Some(0), _) => {}
        (Some(c), _) => {
            note(format_args!("the program exited with status {c}; {kept}"));
            std::process::exit(c.clamp(1, 255));
        }
        (None, Some(s)) => {
            warning(format_args!(
                "the program was killed by {} (signal {s}); {kept}",
                signal_name(s)
            ));
            std::process::exit(128 + s.clamp(1, 127));
        }
        (None, None) => {
            warning(format_args!("the program's exit status is unknown; {kept}"));
            std::process::exit(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_is_listed_in_exactly_one_group() {
        let cmd = command();
        // Built, as for help: clap's own `help` subcommand is added then.
        let mut built = cmd.clone();
        built.build();
        let mut listed: Vec<&str> = GROUPS.iter().flat_map(|(_, n)| n.iter().copied()).collect();
        listed.sort();
        let mut visible: Vec<&str> = built
            .get_subcommands()
            .filter(|s| !s.is_hide_set())
            .map(|s| s.get_name())
            .collect();
        visible.sort();
        assert_eq!(listed, visible);
        let help = cmd.clone().render_help().to_string();
        for (heading, _) in GROUPS {
            assert!(help.contains(&format!("{heading}:\n")), "{help}");
        }
        assert!(help.contains("Exit status:"), "{help}");
        assert!(!help.contains("context-sampler"), "{help}");
    }

    /// Parses a command line the way `tracekit` does.
    fn parsed(args: &[&str]) -> String {
        let m = command()
            .try_get_matches_from(std::iter::once("tracekit").chain(args.iter().copied()))
            .unwrap_or_else(|e| panic!("{args:?}: {e}"));
        format!("{:?}", Cli::from_arg_matches(&m).unwrap())
    }

    /// Renamed options keep their old spelling as a hidden alias, so
    /// scripts written for earlier versions keep working.
    #[test]
    fn old_spellings_still_parse_to_the_same_command() {
        for (old, new) in [
            (
                &["replay", "t", "--tid", "5"][..],
                &["replay", "t", "--thread", "5"][..],
            ),
            (&["context", "t", "--at", "-5.5"], &["context", "t", "--at-us", "-5.5"]),
            (&["example", "--duration", "20"], &["example", "--duration-s", "20"]),
            (&["example", "--out", "d"], &["example", "-o", "d"]),
            (
                &["emu", "report", "d", "--top", "3"],
                &["emu", "report", "d", "--limit", "3"],
            ),
            (
                &["emu", "blocks", "d", "--top", "3"],
                &["emu", "blocks", "d", "--limit", "3"],
            ),
            (
                &["paths", "report", "l", "--program", "p", "--top", "2", "--methods", "7"],
                &[
                    "paths",
                    "report",
                    "l",
                    "--program",
                    "p",
                    "--paths-per-method",
                    "2",
                    "--limit",
                    "7",
                ],
            ),
            (
                &["paths", "instrument", "a.jar", "--out", "b.jar"],
                &["paths", "instrument", "a.jar", "--output", "b.jar"],
            ),
            (&["record", "--out", "r", "--", "x"], &["record", "-o", "r", "--", "x"]),
            (&["profile", "t", "--top", "3"], &["profile", "t", "--limit", "3"]),
        ] {
            assert_eq!(parsed(old), parsed(new), "{old:?}");
        }
        // Hidden: the help shows the new spelling only.
        let help = command()
            .find_subcommand("context")
            .unwrap()
            .clone()
            .render_help()
            .to_string();
        assert!(help.contains("--at-us") && !help.contains("--at <"), "{help}");
    }

    #[test]
    fn choices_are_checked_by_the_parser() {
        for bad in [
            &["emu", "run", "--arch", "sparc", "-o", "d", "--", "x"][..],
            &["record", "--overflow", "later", "--", "x"],
            &["record", "--context", "cpu,gpu", "--", "x"],
            &["paths", "instrument", "a.jar", "-o", "b.jar", "--scheme", "zip"],
            &[
                "paths", "encode", "--cfg", "c", "--method", "m", "--scheme", "raw", "--path", "A",
            ],
            &["context", "t", "--at-us", "NaN"],
            &["context", "t", "--at-us", "inf"],
            &["example", "--duration-s", "0"],
        ] {
            let e = command()
                .try_get_matches_from(std::iter::once("tracekit").chain(bad.iter().copied()))
                .expect_err(&format!("{bad:?} was accepted"));
            assert_eq!(e.exit_code(), 2, "{bad:?}");
        }
    }

    #[test]
    fn signal_names() {
        assert_eq!(signal_name(libc::SIGSEGV), "SIGSEGV");
        assert_eq!(signal_name(libc::SIGKILL), "SIGKILL");
        assert_eq!(signal_name(99), "signal 99");
    }
}
