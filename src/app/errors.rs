//! The messages the window shows the user: every error with when it happened, kept until
//! the user dismisses it (one by one or all), never dropped by opening the list.

use std::time::SystemTime;

/// One message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorEntry {
    /// The message (it names the file and the problem).
    pub message: String,
    /// When it happened.
    pub at: SystemTime,
}

impl ErrorEntry {
    /// The time of day it happened (`HH:MM:SS`, UTC).
    pub fn time(&self) -> String {
        let secs = self
            .at
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let day = secs % 86_400;
        format!("{:02}:{:02}:{:02}", day / 3600, day / 60 % 60, day % 60)
    }
}

/// The window's messages, oldest first.
#[derive(Clone, Debug, Default)]
pub struct Errors(Vec<ErrorEntry>);

impl Errors {
    /// Adds a message, timed now.
    pub fn push(&mut self, message: impl Into<String>) {
        self.0.push(ErrorEntry {
            message: message.into(),
            at: SystemTime::now(),
        });
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The newest.
    pub fn last(&self) -> Option<&ErrorEntry> {
        self.0.last()
    }

    /// All, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &ErrorEntry> {
        self.0.iter()
    }

    /// Dismisses message `i`.
    pub fn dismiss(&mut self, i: usize) {
        if i < self.0.len() {
            self.0.remove(i);
        }
    }

    /// Dismisses all.
    pub fn clear(&mut self) {
        self.0.clear();
    }
}

impl Extend<String> for Errors {
    fn extend<T: IntoIterator<Item = String>>(&mut self, iter: T) {
        for m in iter {
            self.push(m);
        }
    }
}
