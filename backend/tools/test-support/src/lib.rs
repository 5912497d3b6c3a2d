//! Test support shared by every package's `tests/`: free ports, waiting on a condition with a
//! deadline, a per-test PostgreSQL schema and Redis prefix, and the upstream simulator.
