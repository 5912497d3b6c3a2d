//! The dependency rules of SPEC.md §2 and the no-test-mounts rule, checked against the real
//! workspace; each rule is also shown to fail on a manifest that breaks it.

mod rules;
mod secret_debug;
mod source_mounts;
mod workspace;
