//! `tracekit generate completions|man|libs|options` (hidden): shell completions,
//! manual pages and the guide's option reference, all generated from the
//! same clap definitions `tracekit` parses with, so a command added later is
//! covered without anyone remembering to.

use anyhow::{Context as _, Result};
use clap::{Arg, ArgAction};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Arguments of `tracekit generate`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

/// The shells completions are written for.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Shell {
    Bash,
    Zsh,
    Fish,
}

#[derive(Debug, clap::Subcommand)]
enum What {
    /// Shell completions for bash, zsh or fish, on stdout or into a file.
    Completions {
        /// The shell.
        #[arg(long, value_enum)]
        shell: Shell,
        /// Write here instead of stdout.
        #[arg(short = 'o', long = "output", value_name = "PATH")]
        out: Option<PathBuf>,
    },
    /// Manual pages: tracekit.1 and one per subcommand (tracekit-emu-run.1, …).
    Man {
        /// Directory to write the pages into (created if missing).
        #[arg(short = 'o', long = "output", value_name = "DIR")]
        out: PathBuf,
    },
    /// The libraries built into this binary (runtime, QEMU plugin), for a
    /// package to install in /usr/lib/tracekit.
    Libs {
        /// Directory to write them into (created if missing).
        #[arg(short = 'o', long = "output", value_name = "DIR")]
        out: PathBuf,
    },
    /// The guide's option reference (Markdown), on stdout or into a file.
    Options {
        /// Write here instead of stdout.
        #[arg(short = 'o', long = "output", value_name = "PATH")]
        out: Option<PathBuf>,
    },
}

/// Runs `tracekit generate …`.
pub fn run(a: Args) -> Result<()> {
    match a.what {
        What::Completions { shell, out } => {
            let mut bytes = Vec::new();
            completions(shell, &mut bytes);
            emit(out.as_deref(), &bytes)
        }
        What::Man { out } => {
            let written = man_pages(&out)?;
            super::note(format_args!(
                "wrote {} manual pages into {}",
                written.len(),
                out.display()
            ));
            Ok(())
        }
        What::Libs { out } => {
            let written = crate::libs::write_embedded(&out)?;
            for p in written {
                super::note(format_args!("wrote {}", p.display()));
            }
            Ok(())
        }
        What::Options { out } => emit(out.as_deref(), options_reference().as_bytes()),
    }
}

fn emit(out: Option<&Path>, bytes: &[u8]) -> Result<()> {
    match out {
        Some(path) => std::fs::write(path, bytes).with_context(|| format!("{}: cannot write", path.display())),
        None => {
            std::io::stdout().write_all(bytes)?;
            Ok(())
        }
    }
}

/// The command line as users see it: hidden commands and `help` left out.
fn visible_command() -> clap::Command {
    let mut cmd = super::command();
    cmd.build();
    cmd
}

/// The subcommands a user sees: not hidden, and not clap's own `help`.
fn shown(cmd: &clap::Command) -> impl Iterator<Item = &clap::Command> {
    cmd.get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
}

/// The command line without its hidden subcommands, which completion
/// generators would otherwise offer (clap cannot remove a subcommand, so
/// the root is rebuilt around the visible ones).
fn completion_command() -> clap::Command {
    let full = <super::Cli as clap::CommandFactory>::command();
    let mut root = clap::Command::new("tracekit")
        .version(env!("CARGO_PKG_VERSION"))
        .about(full.get_about().map(|a| a.to_string()).unwrap_or_default())
        .subcommand_required(true)
        .arg_required_else_help(true);
    for arg in full.get_arguments() {
        root = root.arg(arg.clone());
    }
    for sub in full.get_subcommands().filter(|s| !s.is_hide_set()) {
        root = root.subcommand(sub.clone());
    }
    root
}

fn completions(shell: Shell, out: &mut Vec<u8>) {
    use clap_complete::shells;
    let mut cmd = completion_command();
    match shell {
        Shell::Bash => clap_complete::generate(shells::Bash, &mut cmd, "tracekit", out),
        Shell::Zsh => clap_complete::generate(shells::Zsh, &mut cmd, "tracekit", out),
        Shell::Fish => clap_complete::generate(shells::Fish, &mut cmd, "tracekit", out),
    }
}

/// Writes `tracekit.1` and a page per visible subcommand, at every depth;
/// returns the files written.
fn man_pages(dir: &Path) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    let mut written = Vec::new();
    // The root's help template lists commands by group for the terminal;
    // the man page has its own SUBCOMMANDS section.
    let root = visible_command().help_template("{usage}");
    let mut pending = vec![root];
    while let Some(cmd) = pending.pop() {
        pending.extend(shown(&cmd).cloned());
        let man = clap_mangen::Man::new(cmd);
        let path = man
            .generate_to(dir)
            .with_context(|| format!("{}: cannot write a manual page", dir.display()))?;
        written.push(path);
    }
    written.sort();
    Ok(written)
}

/// Every visible command and its options, as Markdown (the guide's
/// `reference/options.md`).
pub fn options_reference() -> String {
    let mut out = String::from(
        "# Command-line options\n\n\
         Generated from tracekit's own argument definitions (`tracekit generate options`);\n\
         `tracekit COMMAND --help` prints the same.\n",
    );
    let root = visible_command();
    let mut stack: Vec<(String, clap::Command)> = vec![("tracekit".into(), root)];
    while let Some((path, cmd)) = stack.pop() {
        if path != "tracekit" {
            out.push_str(&format!("\n## `{path}`\n\n"));
            if let Some(about) = cmd.get_long_about().or(cmd.get_about()) {
                out.push_str(&format!("{}\n\n", markdown_text(&about.to_string())));
            }
            let usage = cmd.clone().bin_name(&path).render_usage().to_string();
            let usage = usage.trim_start_matches("Usage: ").trim();
            out.push_str(&format!("```text\n{usage}\n```\n\n"));
            let mut args: Vec<&Arg> = cmd
                .get_arguments()
                .filter(|a| !a.is_hide_set() && a.get_id() != "help" && a.get_id() != "version")
                .collect();
            // A command's own options first, then the global ones it
            // inherits, however late its own were built.
            args.sort_by_key(|a| a.is_global_set());
            for a in args {
                out.push_str(&format!("- `{}`", arg_spelling(a)));
                if let Some(help) = a.get_long_help().or(a.get_help()) {
                    out.push_str(&format!(": {}", markdown_text(&help.to_string().replace('\n', " "))));
                }
                let values: Vec<String> = a
                    .get_possible_values()
                    .iter()
                    .filter(|v| !v.is_hide_set())
                    .map(|v| format!("`{}`", v.get_name()))
                    .collect();
                if !values.is_empty() && a.get_action().takes_values() {
                    out.push_str(&format!(" One of {}.", values.join(", ")));
                }
                let defaults: Vec<String> = a
                    .get_default_values()
                    .iter()
                    .map(|v| v.to_string_lossy().into_owned())
                    .collect();
                if !defaults.is_empty() && !matches!(a.get_action(), ArgAction::SetTrue | ArgAction::SetFalse) {
                    out.push_str(&format!(" Default: `{}`.", defaults.join(",")));
                }
                out.push('\n');
            }
        }
        let mut subs: Vec<clap::Command> = shown(&cmd).cloned().collect();
        subs.reverse();
        for s in subs {
            let name = format!("{path} {}", s.get_name());
            stack.push((name, s));
        }
    }
    out
}

/// Help text as Markdown prose: `<`, `>` and `&` outside `code spans` are
/// escaped, so `qemu-<arch>` is not taken for an HTML tag.
fn markdown_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_code = false;
    for c in text.chars() {
        match c {
            '`' => {
                in_code = !in_code;
                out.push(c);
            }
            '<' if !in_code => out.push_str("&lt;"),
            '>' if !in_code => out.push_str("&gt;"),
            '&' if !in_code => out.push_str("&amp;"),
            _ => out.push(c),
        }
    }
    out
}

/// `-o, --output <PATH>` or `<INPUT>`.
fn arg_spelling(a: &Arg) -> String {
    let value = a
        .get_value_names()
        .map(|v| v.iter().map(|n| format!("<{n}>")).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| format!("<{}>", a.get_id().as_str().to_uppercase()));
    if a.is_positional() {
        return value;
    }
    let mut names = Vec::new();
    if let Some(s) = a.get_short() {
        names.push(format!("-{s}"));
    }
    if let Some(l) = a.get_long() {
        names.push(format!("--{l}"));
    }
    let mut s = names.join(", ");
    if a.get_action().takes_values() {
        s.push(' ');
        s.push_str(&value);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every visible command, at every depth, as `tracekit a b`.
    fn command_paths() -> Vec<String> {
        let mut out = Vec::new();
        let mut stack = vec![("tracekit".to_owned(), visible_command())];
        while let Some((path, cmd)) = stack.pop() {
            for s in shown(&cmd) {
                stack.push((format!("{path} {}", s.get_name()), s.clone()));
            }
            out.push(path);
        }
        out
    }

    #[test]
    fn a_manual_page_per_visible_command_and_none_for_hidden_ones() {
        let dir = tempfile::tempdir().unwrap();
        let written = man_pages(dir.path()).unwrap();
        let mut names: Vec<String> = written
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        names.sort();
        let mut expected: Vec<String> = command_paths()
            .iter()
            .map(|p| format!("{}.1", p.replace(' ', "-")))
            .collect();
        expected.sort();
        assert_eq!(names, expected);
        assert!(names.contains(&"tracekit-emu-run.1".to_owned()), "{names:?}");
        assert!(!names
            .iter()
            .any(|n| n.contains("context-sampler") || n.contains("generate")));
        let page = std::fs::read_to_string(dir.path().join("tracekit-convert.1")).unwrap();
        assert!(page.contains(".TH tracekit-convert 1"), "{page}");
        assert!(page.contains("speedscope"), "possible values are listed: {page}");
    }

    #[test]
    fn completions_know_every_subcommand_and_its_options() {
        for shell in [Shell::Bash, Shell::Zsh, Shell::Fish] {
            let mut out = Vec::new();
            completions(shell, &mut out);
            let text = String::from_utf8(out).unwrap();
            for word in ["profile", "convert", "when", "speedscope", "arch", "quiet"] {
                assert!(text.contains(word), "{shell:?} lacks {word}");
            }
            // Neither hidden command by name (bash names a function per
            // command) nor by description (zsh and fish list them).
            for hidden in [
                "context-sampler",
                "context_sampler",
                "tracekit__generate",
                "for packagers",
                "generate:",
            ] {
                assert!(!text.contains(hidden), "{shell:?} offers a hidden command ({hidden})");
            }
        }
    }

    #[test]
    fn help_text_is_markdown_prose_without_stray_tags() {
        assert_eq!(
            markdown_text("qemu-<arch> & `a<b>` -> x"),
            "qemu-&lt;arch&gt; &amp; `a<b>` -&gt; x"
        );
        let reference = options_reference();
        assert!(reference.contains("qemu-&lt;arch&gt;"));
        assert!(!reference.contains("under qemu-<arch>"));
    }

    #[test]
    fn the_option_reference_covers_every_command() {
        let text = options_reference();
        for path in command_paths().iter().skip(1) {
            assert!(text.contains(&format!("## `{path}`")), "{path} missing");
        }
        assert!(text.contains("- `--to <TO>`") || text.contains("- `--to <"), "{text}");
        assert!(text.contains("`speedscope`"));
    }
}
