//! The self-update, mirroring `src/update/`: the manifest, verification, the on-disk swap, the
//! archive, host facts, and the updater end to end against a local fake release server (the
//! restart itself, with the real binary, is tested in the `switchboard` package).

mod archive;
mod fake_release;
mod host;
mod install;
mod release;
mod updater;
mod verify;
