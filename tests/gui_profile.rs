//! The profile pane, driven as a person does: a real CPU profile (`node --cpu-prof` on the
//! minified lodash bundle) dropped with its map shows in its own tab with original names;
//! the heaviest functions are V8's own in the unminified run; a bar of the flame chart names
//! itself on hover and opens the segment inspector from a click and a key; a range dragged
//! on the ruler limits the call tree to the samples in it (counted here from the raw JSON);
//! two runs compare by function.

mod common;

use common::harness::*;
use common::js;
use egui::Pos2;
use serde_json::Value;
use std::path::PathBuf;

fn profiles() -> PathBuf {
    common::fixture("profiles")
}

/// The app with the minified run's profile and the bundle's map dropped, names resolved.
fn lodash() -> Harness<'static, AppState> {
    let mut h = app();
    h.run_steps(2);
    drop_files(
        &mut h,
        &[
            profiles().join("lodash-min.cpuprofile"),
            js("lodash-terser/lodash.min.js.map"),
        ],
    );
    settle(&mut h, |h| has_tab(h, "Profile"));
    h
}

fn node_rect(h: &Harness<'static, AppState>, label: &str) -> egui::Rect {
    h.get_by_label(label).rect()
}

fn move_to(h: &mut Harness<'static, AppState>, p: Pos2) {
    h.input_mut().events.push(egui::Event::PointerMoved(p));
    h.run_steps(3);
}

fn press(h: &mut Harness<'static, AppState>, p: Pos2, pressed: bool) {
    h.input_mut().events.push(egui::Event::PointerButton {
        pos: p,
        button: egui::PointerButton::Primary,
        pressed,
        modifiers: egui::Modifiers::NONE,
    });
    h.step();
}

fn key(h: &mut Harness<'static, AppState>, key: egui::Key) {
    for pressed in [true, false] {
        h.input_mut().events.push(egui::Event::Key {
            key,
            physical_key: None,
            pressed,
            repeat: false,
            modifiers: egui::Modifiers::NONE,
        });
    }
    h.run_steps(3);
}

#[test]
fn the_heaviest_functions_are_v8s_own_by_name() {
    let mut h = lodash();
    assert!(tab_active(&h, "Profile"));
    h.get_by_label("Bottom-up").click();
    h.run_steps(2);
    h.get_by_label("Self time").click();
    h.run_steps(3);
    // The functions V8 counted heaviest in the unminified run of the same workload.
    let oracle: Value =
        serde_json::from_slice(&std::fs::read(profiles().join("lodash-min.oracle.json")).unwrap())
            .unwrap();
    let mut named = 0;
    for heavy in oracle["heavy"].as_array().unwrap() {
        let name = heavy["function"].as_str().unwrap();
        if name.is_empty() {
            continue;
        }
        named += 1;
        assert!(
            has_label(&h, name),
            "{name} is not among the heaviest shown"
        );
    }
    assert!(named >= 3);
}

#[test]
fn a_flame_chart_bar_names_itself_and_opens_the_inspector() {
    let mut h = lodash();
    // The widest arrayAggregator bar, placed as the widget places it (the whole profile shown).
    let (depth, span) = widest_bar(h.state(), "arrayAggregator");
    let (start, end) = {
        let s = h.state();
        let p = s.profile(s.shown_profile().unwrap()).unwrap();
        (p.chart.start, p.chart.end)
    };
    let bars = node_rect(&h, "Flame chart bars");
    let x = bars.left()
        + bars.width()
            * (((span.start + span.end) as f64 / 2.0 - start as f64) / (end - start) as f64) as f32;
    let y = bars.top() + (depth as f32 + 0.5) * 18.0;
    assert!(y < bars.bottom(), "the bar is in view");
    let at = Pos2::new(x, y);
    move_to(&mut h, at);
    // Hover texts show after the pointer rests a moment.
    h.run_steps(40);
    let tip = labels_containing(&h, "arrayAggregator");
    assert!(
        tip.iter()
            .any(|t| t.contains("lodash.js:") && t.contains("total")),
        "hover text: {tip:?}"
    );
    press(&mut h, at, true);
    press(&mut h, at, false);
    h.run_steps(3);
    assert_eq!(
        h.state().view.profile.selected.and_then(|s| s.node),
        Some(span.id)
    );
    // The frame detail shows the function's original source (the map's sourcesContent).
    assert!(
        !labels_containing(&h, "function arrayAggregator(").is_empty(),
        "the original source is shown"
    );
    let via = labels_containing(&h, "via ");
    assert!(
        via.iter().any(|v| v.ends_with("lodash.min.js.map")),
        "resolved through: {via:?}"
    );
    // One key away: the segment inspector on the bundle's map.
    move_to(&mut h, Pos2::new(x, bars.top() - 40.0));
    key(&mut h, egui::Key::I);
    settle(&mut h, |h| has_tab(h, "Segment inspector"));
    assert!(tab_active(&h, "Segment inspector"));
    assert!(
        h.state()
            .workspace
            .selection
            .inspected_map
            .as_deref()
            .is_some_and(|m| m.ends_with("lodash.min.js.map"))
    );
}

#[test]
fn keys_zoom_and_reset_the_flame_chart() {
    let mut h = lodash();
    let bars = node_rect(&h, "Flame chart bars");
    move_to(
        &mut h,
        bars.left_top() + egui::vec2(bars.width() / 2.0, 9.0),
    );
    assert_eq!(h.state().view.profile.chart_window, None);
    key(&mut h, egui::Key::Plus);
    let (a, b) = h.state().view.profile.chart_window.expect("zoomed in");
    let (start, end) = {
        let s = h.state();
        let p = s.profile(s.shown_profile().unwrap()).unwrap();
        (p.chart.start as f64, p.chart.end as f64)
    };
    assert!(
        ((b - a) - (end - start) / 2.0).abs() < 1.0,
        "half the profile"
    );
    key(&mut h, egui::Key::ArrowRight);
    let (c, _) = h.state().view.profile.chart_window.unwrap();
    assert!(c > a, "panned right");
    key(&mut h, egui::Key::Num0);
    assert_eq!(h.state().view.profile.chart_window, None);
}

/// The time of the samples in `[from, to)` by DevTools' rule, read here from the raw JSON.
fn samples_time(from: i64, to: i64) -> i64 {
    let p: Value =
        serde_json::from_slice(&std::fs::read(profiles().join("lodash-min.cpuprofile")).unwrap())
            .unwrap();
    let mut t = p["startTime"].as_i64().unwrap();
    let times: Vec<i64> = p["timeDeltas"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            t += d.as_i64().unwrap();
            t
        })
        .collect();
    let n = times.len();
    let root = p["nodes"][0]["id"].as_i64().unwrap();
    (0..n)
        .filter(|&i| times[i] >= from && times[i] < to)
        .filter(|&i| p["samples"][i].as_i64() != Some(root))
        .map(|i| {
            if i + 1 < n {
                times[i + 1] - times[i]
            } else {
                (times[n - 1] - times[0]) / (n as i64 - 1)
            }
        })
        .sum()
}

#[test]
fn a_range_dragged_on_the_ruler_limits_the_call_tree() {
    let mut h = lodash();
    let ruler = node_rect(&h, "Flame chart ruler");
    let from = Pos2::new(ruler.left() + ruler.width() * 0.25, ruler.center().y);
    let to = Pos2::new(ruler.left() + ruler.width() * 0.6, ruler.center().y);
    move_to(&mut h, from);
    press(&mut h, from, true);
    for k in 1..=8 {
        move_to(&mut h, from + (to - from) * (k as f32 / 8.0));
    }
    press(&mut h, to, false);
    h.run_steps(3);
    let (a, b) = h.state().view.profile.range.expect("a range");
    assert!(b > a);
    assert!(has_label(&h, "Clear range"));
    h.get_by_label("Top-down").click();
    h.run_steps(3);
    let model = h.state_mut().profile_model().unwrap();
    let tree = model.tree.as_ref().unwrap();
    assert_eq!(tree.total_us, samples_time(a, b));
    assert!(tree.total_us > 0);
    h.get_by_label("Clear range").click();
    h.run_steps(3);
    assert_eq!(h.state().view.profile.range, None);
}

#[test]
fn two_runs_compare_by_function() {
    let mut h = lodash();
    drop_files(&mut h, &[profiles().join("lodash-unminified.cpuprofile")]);
    settle(&mut h, |h| h.state().loaded_profiles().len() == 2);
    h.get_by_label("Compare").click();
    h.run_steps(4);
    // The minified run (names from its map) and the package's run name the same functions.
    for name in ["arrayAggregator", "baseSum", "baseUniq"] {
        assert!(has_label(&h, name), "{name} is matched in both runs");
    }
    assert!(has_label(&h, "Compare with"));
    // The differential flame graph: B's tree, each bar with its change against A.
    h.get_by_label("Differential flame graph").click();
    h.run_steps(4);
    let bars = h.get_by_label("Differential flame graph bars").rect();
    move_to(
        &mut h,
        bars.left_top() + egui::vec2(bars.width() / 2.0, 9.0),
    );
    h.run_steps(40);
    let tips: Vec<String> = labels_containing(&h, "B total");
    assert!(
        tips.iter()
            .any(|t| t.contains("against A") || t.contains("new in B")),
        "{tips:?}"
    );
}

/// A JVM's `perf script` dropped with the program's ProGuard mapping: the Java methods the
/// JIT compiled show by their original names (ReTrace's, `java/obf.oracle.json`), the
/// heaviest first, and the frame detail says which mapping named them.
#[test]
fn a_jvm_profiles_methods_show_by_their_original_names() {
    let java = profiles().join("java");
    let mut h = app();
    h.run_steps(2);
    drop_files(
        &mut h,
        &[java.join("obf.perf.txt"), java.join("work-mapping.txt")],
    );
    settle(&mut h, |h| has_tab(h, "Profile"));
    h.get_by_label("Bottom-up").click();
    h.run_steps(2);
    h.get_by_label("Self time").click();
    h.run_steps(3);
    let oracle: Value =
        serde_json::from_slice(&std::fs::read(java.join("obf.oracle.json")).unwrap()).unwrap();
    let named = |obfuscated: &str| {
        let c = &oracle[obfuscated][0];
        let method = c["method"].as_str().unwrap();
        // ProGuard's specialization suffix (`count$134621`) left off, as the source says.
        let method = method.split('$').next().unwrap();
        format!("{}.{method}", c["class"].as_str().unwrap())
    };
    for obfuscated in [
        "int com.example.work.a.a()",
        "int com.example.work.b.a.a(java.lang.String)",
    ] {
        // The whole name, not a prefix of a longer one.
        let name = named(obfuscated);
        assert!(labels_containing(&h, &name).contains(&name), "{obfuscated}");
    }
    h.get_by_label(&named("int com.example.work.a.a()")).click();
    h.run_steps(3);
    // The detail: the frame as the JVM named it, and the mapping that renamed it.
    assert!(has_label(
        &h,
        "at int com.example.work.a.a() (/tmp/perf-6510.map)"
    ));
    assert!(has_label(&h, "via work-mapping.txt"));
}
