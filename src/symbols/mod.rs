//! Pure symbol-file readers and look-ups.

pub mod native;
pub mod proguard;
pub mod scopes;
pub mod sourcemap;
