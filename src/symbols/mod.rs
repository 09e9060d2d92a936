//! Pure symbol-file readers and look-ups.

pub mod proguard;
pub mod sourcemap;
