//! Code adapted from `symbolic` 12.18 (<https://github.com/getsentry/symbolic>, MIT, Sentry;
//! see `LICENSE-symbolic.txt` in this folder): its DWARF reader and function builder
//! (`symbolic-debuginfo`) and its SymCache writer (`symbolic-symcache`). Each file's doc says
//! what differs from upstream and why.

pub mod dwarf;
pub mod function_builder;
pub mod writer;
