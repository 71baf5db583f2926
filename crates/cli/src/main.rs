//! `tracekit`: the command-line front end.
//!
//! This binary stays thin: it parses arguments, calls into the library
//! crates, and prints. Each subcommand lives in its own file under
//! `commands/` (as uftrace keeps one file per subcommand).

mod commands;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = commands::Cli::parse();
    match commands::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tracekit: error: {e:#}");
            ExitCode::from(1)
        }
    }
}
