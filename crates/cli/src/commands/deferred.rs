//! Subcommand arguments built only when their subcommand runs.
//!
//! Deriving builds every subcommand's arguments before parsing, hundreds of
//! `clap::Arg`s and most of the start-up time of a command that uses one
//! subcommand. [`Deferred`] hands clap the builder instead
//! ([`clap::Command::defer`]), so only the chosen subcommand's arguments are
//! made; help, completions and man pages build the rest when they need it.

use clap::{ArgMatches, Args, Command, FromArgMatches};

/// The arguments `T` of one subcommand, built when it is chosen.
#[derive(Debug)]
pub struct Deferred<T>(pub T);

impl<T: FromArgMatches> FromArgMatches for Deferred<T> {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches(matches).map(Deferred)
    }

    fn from_arg_matches_mut(matches: &mut ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches_mut(matches).map(Deferred)
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches(matches)
    }

    fn update_from_arg_matches_mut(&mut self, matches: &mut ArgMatches) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches_mut(matches)
    }
}

/// Runs `augment` on `cmd`, keeping the description the subcommand's
/// variant gave it: built late, `T`'s own doc comment would otherwise
/// replace it (built in place, the variant's comes after and wins).
fn keeping_about(cmd: Command, augment: fn(Command) -> Command) -> Command {
    let about = cmd.get_about().cloned();
    let long_about = cmd.get_long_about().cloned();
    let cmd = augment(cmd);
    let Some(about) = about else { return cmd };
    let cmd = cmd.about(about);
    match long_about {
        Some(long) => cmd.long_about(long),
        None => cmd.long_about(None::<&str>),
    }
}

fn augment<T: Args>(cmd: Command) -> Command {
    keeping_about(cmd, T::augment_args)
}

fn augment_for_update<T: Args>(cmd: Command) -> Command {
    keeping_about(cmd, T::augment_args_for_update)
}

impl<T: Args> Args for Deferred<T> {
    fn augment_args(cmd: Command) -> Command {
        cmd.defer(augment::<T>)
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        cmd.defer(augment_for_update::<T>)
    }

    fn group_id() -> Option<clap::Id> {
        T::group_id()
    }
}
