//! The user's own settings, from `~/.config/symscope/settings.ron` (`$XDG_CONFIG_HOME` when
//! it is an absolute path): never from a workspace, so that opening a workspace
//! someone sent can never make Symscope run a program.
//!
//! ```ron
//! (editor: Some("code --goto {file}:{line}:{column}"))
//! ```

use serde::Deserialize;
use std::path::{Path, PathBuf};

/// The settings.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(default)]
pub struct Settings {
    /// The command that opens a source file at a line: words split on white space (no
    /// shell), `{file}`, `{line}` and `{column}` replaced.
    pub editor: Option<String>,
}

/// Where the settings file is.
pub fn settings_file() -> Option<PathBuf> {
    crate::workspace::user_dirs::config_file("settings.ron")
}

impl Settings {
    /// Reads the settings file (defaults when it is missing or unreadable).
    pub fn load() -> Self {
        settings_file()
            .and_then(|f| std::fs::read_to_string(f).ok())
            .and_then(|t| ron::from_str(&t).ok())
            .unwrap_or_default()
    }

    /// The editor's command for `file` at `line`:`column`, as program and arguments.
    pub fn editor_command(&self, file: &Path, line: u32, column: u32) -> Option<Vec<String>> {
        let template = self.editor.as_deref()?;
        let words: Vec<String> = template
            .split_whitespace()
            .map(|w| {
                w.replace("{file}", &file.display().to_string())
                    .replace("{line}", &line.to_string())
                    .replace("{column}", &column.to_string())
            })
            .collect();
        (!words.is_empty()).then_some(words)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_editor_command_is_split_and_filled() {
        let s: Settings =
            ron::from_str(r#"(editor: Some("code --goto {file}:{line}:{column}"))"#).unwrap();
        assert_eq!(
            s.editor_command(Path::new("/src/a b.rs"), 12, 3).unwrap(),
            ["code", "--goto", "/src/a b.rs:12:3"]
        );
        assert_eq!(
            Settings::default().editor_command(Path::new("x"), 1, 1),
            None
        );
    }
}
