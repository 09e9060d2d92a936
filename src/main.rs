//! The `symscope` binary: a thin shell. `symscope symbolicate …` runs headless; anything else
//! opens the window (eframe, glow renderer).

use clap::Parser as _;
use std::process::ExitCode;
use std::sync::Arc;
use symscope::app::AppState;

/// The eframe application: the app's frame loop, drawing with `symscope::ui`.
struct Shell(AppState);

impl eframe::App for Shell {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.0.frame(ui, symscope::ui::app_ui);
    }
}

fn gui(paths: Vec<std::path::PathBuf>) -> ExitCode {
    // The window comes back where and as large as it was closed.
    let layout = symscope::app::LayoutPrefs::load(symscope::app::layout_file().as_deref());
    let mut viewport = egui::ViewportBuilder::default()
        .with_title("Symscope")
        .with_inner_size([1280.0, 800.0])
        .with_drag_and_drop(true);
    if let Some(w) = layout.window {
        viewport = viewport
            .with_inner_size([w.width, w.height])
            .with_position([w.x, w.y]);
    }
    let options = eframe::NativeOptions {
        viewport,
        renderer: eframe::Renderer::Glow,
        ..Default::default()
    };
    let result = eframe::run_native(
        "Symscope",
        options,
        Box::new(move |cc| {
            let ctx = cc.egui_ctx.clone();
            let mut state = AppState::new(Arc::new(move || ctx.request_repaint()));
            state.start(&paths);
            Ok(Box::new(Shell(state)))
        }),
    );
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("symscope: cannot open the window: {e}");
            ExitCode::from(1)
        }
    }
}

fn main() -> ExitCode {
    let cli = symscope::cli::Cli::parse();
    let outcome = std::panic::catch_unwind(move || match cli.command {
        Some(command) => symscope::cli::run(command),
        None => gui(cli.paths),
    });
    outcome.unwrap_or_else(|_| {
        eprintln!("symscope: internal error (a bug): see the message above");
        ExitCode::from(1)
    })
}
