//! `tracekit`: the command-line front end.
//!
//! This binary stays thin: it parses arguments, calls into the library
//! crates, and prints. Each subcommand lives in its own file under
//! `commands/` (as uftrace keeps one file per subcommand).

mod commands;
mod libs;
mod preflight;
mod progress;

use std::process::ExitCode;

/// Exit statuses: 0 success, 1 error, 2 usage error (see
/// `commands::EXIT_STATUS_HELP`; `record` and `emu run` pass the program's
/// own status through).
fn main() -> ExitCode {
    restore_sigpipe();
    let cli = commands::parse();
    match commands::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!(
                "tracekit: error: {}",
                tracekit_safeio::terminal_lines(&format!("{e:#}"))
            );
            ExitCode::from(1)
        }
    }
}

/// Rust ignores SIGPIPE, so `tracekit … | head` would end in a panic when
/// the pipe closes. Restoring the default makes tracekit stop quietly, as
/// other Unix tools do.
fn restore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called once at start-up, before any other thread exists;
    // setting a signal's disposition to the default is always sound.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
