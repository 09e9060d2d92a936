//! Pure symbol-file readers and look-ups.

pub mod sourcemap;
