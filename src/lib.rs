//! Symscope: a symbol and trace explorer.
//!
//! Layers, each using only those before it: [`model`] (plain data), [`formats`] (log parsers,
//! file-kind detection), [`symbols`] (symbol-file readers), [`symbolicate`] (matching and
//! resolving), [`jobs`] (background work), [`workspace`] (the saved document). The pure
//! layers start no threads.

pub mod app;
pub mod cli;
pub mod engine;
pub mod formats;
pub mod fuzzing;
pub mod jobs;
pub mod model;
pub mod symbolicate;
pub mod symbols;
pub mod ui;
pub mod workspace;
