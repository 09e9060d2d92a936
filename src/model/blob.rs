//! Shared, immutable file bytes (a `Vec`, an `Arc<[u8]>` or a memory map).

use std::fmt;
use std::sync::Arc;

/// Cheaply clonable bytes of a file. Readers keep byte ranges into it instead of copies.
#[derive(Clone)]
pub struct Blob(Arc<dyn AsRef<[u8]> + Send + Sync>);

impl Blob {
    /// Wraps any owner of bytes.
    pub fn new(bytes: impl AsRef<[u8]> + Send + Sync + 'static) -> Self {
        Self(Arc::new(bytes))
    }

    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        (*self.0).as_ref()
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.as_slice().len()
    }

    /// Whether there are no bytes.
    pub fn is_empty(&self) -> bool {
        self.as_slice().is_empty()
    }
}

impl From<Vec<u8>> for Blob {
    fn from(v: Vec<u8>) -> Self {
        Self::new(v)
    }
}

impl From<Arc<[u8]>> for Blob {
    fn from(v: Arc<[u8]>) -> Self {
        Self::new(v)
    }
}

impl From<&[u8]> for Blob {
    fn from(v: &[u8]) -> Self {
        Self::new(v.to_vec())
    }
}

impl From<String> for Blob {
    fn from(v: String) -> Self {
        Self::new(v.into_bytes())
    }
}

impl From<&str> for Blob {
    fn from(v: &str) -> Self {
        Self::new(v.as_bytes().to_vec())
    }
}

impl fmt::Debug for Blob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Blob({} bytes)", self.len())
    }
}
