//! Apple crash reports (`tests/fixtures/native/apple`): every report parses into the threads,
//! frames, addresses and binary images its upstream expected output lists
//! (apple-crash-report-parser's insta snapshots, pycrashreport's `.ips` frame list).

use symscope::formats::parse_text;
use symscope::model::{LogFormat, Trace};

const DIR: &str = "tests/fixtures/native/apple";

fn read(path: &str) -> String {
    std::fs::read_to_string(format!("{DIR}/{path}")).unwrap()
}

/// A thread: id, crashed, frames as (module, address).
type Thread = (u32, bool, Vec<(Option<String>, u64)>);

/// What an apple-crash-report-parser snapshot says: threads (id, crashed, frames as
/// (module, address)) and images (address, uuid, arch, name, path).
#[derive(Debug, Default)]
struct Snapshot {
    threads: Vec<Thread>,
    images: Vec<(u64, String, String, String, String)>,
}

fn unquote(s: &str) -> String {
    s.trim().trim_matches('"').to_owned()
}

fn hex(s: &str) -> u64 {
    u64::from_str_radix(unquote(s).trim_start_matches("0x"), 16).unwrap()
}

/// Reads the YAML snapshot's `threads:` and `binary_images:` lists line by line.
fn snapshot(path: &str) -> Snapshot {
    let text = read(path);
    let mut snap = Snapshot::default();
    let mut section = "";
    let mut module: Option<String> = None;
    let mut image: Vec<(String, String)> = Vec::new();
    let flush_image = |image: &mut Vec<(String, String)>, snap: &mut Snapshot| {
        if image.is_empty() {
            return;
        }
        let get = |k: &str| {
            image
                .iter()
                .find(|(key, _)| key == k)
                .map_or(String::new(), |(_, v)| v.clone())
        };
        snap.images.push((
            hex(&get("addr")),
            get("uuid"),
            get("arch"),
            get("name"),
            get("path"),
        ));
        image.clear();
    };
    for line in text.lines() {
        if !line.starts_with(' ') {
            section = line.trim_end_matches(':');
            continue;
        }
        let t = line.trim();
        match section {
            "threads" => {
                if let Some(id) = t.strip_prefix("- id: ") {
                    snap.threads.push((id.parse().unwrap(), false, Vec::new()));
                } else if let Some(c) = t.strip_prefix("crashed: ") {
                    snap.threads.last_mut().unwrap().1 = c == "true";
                } else if let Some(m) = t.strip_prefix("- module: ") {
                    module = Some(unquote(m));
                } else if let Some(a) = t
                    .strip_prefix("- instruction_addr: ")
                    .or_else(|| t.strip_prefix("instruction_addr: "))
                {
                    let m = if t.starts_with('-') {
                        None
                    } else {
                        module.take()
                    };
                    snap.threads.last_mut().unwrap().2.push((m, hex(a)));
                }
            }
            "binary_images" => {
                let t2 = t.strip_prefix("- ").unwrap_or(t);
                if t.starts_with("- ") {
                    flush_image(&mut image, &mut snap);
                }
                if let Some((k, v)) = t2.split_once(": ") {
                    image.push((k.to_owned(), unquote(v)));
                }
            }
            _ => {}
        }
    }
    flush_image(&mut image, &mut snap);
    snap
}

/// Our trace in the snapshot's terms (threads in log order by their ids).
fn compare(trace: &Trace, snap: &Snapshot) {
    let mut ours: Vec<Thread> = trace
        .stacks
        .iter()
        .map(|s| {
            let id: u32 = s.title["Thread ".len()..]
                .split([' ', ':', '\n'])
                .next()
                .unwrap()
                .parse()
                .unwrap();
            let frames = s
                .frames
                .iter()
                .map(|f| {
                    let i = f.input.as_ref().expect(&f.raw);
                    (i.module.clone(), i.address.unwrap())
                })
                .collect();
            (id, s.crashed, frames)
        })
        .collect();
    // The crashed thread comes first in ours; the snapshot keeps log order.
    assert!(ours.first().is_none_or(|t| t.1) || !snap.threads.iter().any(|t| t.1));
    ours.sort_by_key(|t| t.0);
    assert_eq!(ours, snap.threads);
    let images: Vec<(u64, String, String, String, String)> = trace
        .modules
        .iter()
        .map(|m| {
            (
                m.base,
                m.id.clone().unwrap_or_default().to_ascii_lowercase(),
                m.arch.clone().unwrap_or_default(),
                m.name.clone(),
                m.path.clone().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(images, snap.images);
}

#[test]
fn bruno_equals_the_parser_snapshot() {
    let trace = parse_text(&read("apple-crash-report-parser/bruno.txt"));
    assert_eq!(trace.format, LogFormat::AppleCrash);
    let snap = snapshot("apple-crash-report-parser/test_snapshots__bruno.snap");
    assert!(snap.threads.len() > 5 && snap.images.len() > 100);
    compare(&trace, &snap);
    // The crashed thread leads, with the exception in its title.
    let first = &trace.stacks[0];
    assert!(first.crashed);
    assert_eq!(
        first.title,
        "Thread 5 Crashed\nSIGSEGV, SEGV_MAPERR at 0x88"
    );
    // Module offsets and image UUIDs come from `Binary Images:`.
    let f = first.frames[0].input.as_ref().unwrap();
    assert_eq!(f.module_offset, Some(10821938));
    assert_eq!(
        f.build_id.as_deref(),
        Some("2D903291-397D-3D14-BFCA-52C7FB8C5E00")
    );
    assert_eq!(f.arch.as_deref(), Some("x86_64"));
    assert!(!f.return_address);
    assert!(first.frames[1].input.as_ref().unwrap().return_address);
    // `???` frames (no image) keep their address and no module.
    let unknown = trace
        .stacks
        .iter()
        .flat_map(|s| &s.frames)
        .find(|f| f.raw.contains("???"))
        .unwrap();
    let i = unknown.input.as_ref().unwrap();
    assert_eq!((i.module.as_deref(), i.module_offset), (None, None));
}

#[test]
fn spaces_in_image_names_equal_the_parser_snapshot() {
    let trace = parse_text(&read("apple-crash-report-parser/spaces.txt"));
    assert_eq!(trace.format, LogFormat::AppleCrash);
    compare(
        &trace,
        &snapshot("apple-crash-report-parser/test_snapshots__spaces.snap"),
    );
    let f = trace.stacks[0].frames[0].input.as_ref().unwrap();
    assert_eq!(f.module.as_deref(), Some("App Namespace"));
    assert_eq!(f.module_offset, Some(1363568));
}

#[test]
fn a_header_only_report_has_no_threads() {
    let trace = parse_text(&read("apple-crash-report-parser/xcode16.txt"));
    assert_eq!(trace.format, LogFormat::AppleCrash);
    assert!(trace.stacks.is_empty() && trace.modules.is_empty());
}

#[test]
fn monterey_ips_equals_its_frame_list() {
    let trace = parse_text(&read(
        "pycrashreport/user_mode_crash_report_monterey_non_symbolicated.ips",
    ));
    assert_eq!(trace.format, LogFormat::AppleIps);
    let expected: serde_json::Value =
        serde_json::from_str(&read("pycrashreport/frames-monterey.json")).unwrap();
    let crashed = &trace.stacks[0];
    assert!(crashed.crashed);
    assert!(
        crashed
            .title
            .starts_with("Thread 0 Crashed: com.apple.main-thread\nEXC_BAD_ACCESS (SIGSEGV)"),
        "{}",
        crashed.title
    );
    let frames = expected["frames"].as_array().unwrap();
    assert_eq!(crashed.frames.len(), frames.len());
    let h = |v: &serde_json::Value| u64::from_str_radix(&v.as_str().unwrap()[2..], 16).unwrap();
    for (ours, want) in crashed.frames.iter().zip(frames) {
        let i = ours.input.as_ref().unwrap();
        assert_eq!(i.address, Some(h(&want["abs_addr"])), "{}", ours.raw);
        assert_eq!(i.module.as_deref(), want["image"].as_str(), "{}", ours.raw);
        assert_eq!(
            i.function.as_deref(),
            want["symbol"].as_str(),
            "{}",
            ours.raw
        );
        if want["image"].is_null() {
            // Image 0 is the all-zero UUID at base 0: pc 0, in no module.
            assert_eq!(i.module_offset, None);
        } else {
            assert_eq!(i.module_offset, Some(h(&want["imageOffset"])));
            assert_eq!(
                i.build_id
                    .as_deref()
                    .map(str::to_ascii_lowercase)
                    .as_deref(),
                want["uuid"].as_str()
            );
        }
        assert!(ours.line_no > 1, "{}", ours.raw);
    }
    // Every used image with a name is a module.
    assert!(trace.modules.iter().any(|m| m.name == "libsystem_c.dylib"
        && m.base == 0x7ff80c65c000
        && m.arch.as_deref() == Some("x86_64")));
}

#[test]
fn ios14_ips_holds_a_text_report() {
    let text = read("pycrashreport/user_mode_crash_report_ios14_symbolicated.ips");
    let trace = parse_text(&text);
    assert_eq!(trace.format, LogFormat::AppleIps);
    let crashed = &trace.stacks[0];
    assert!(crashed.crashed);
    assert_eq!(
        crashed.title,
        "Thread 0 Crashed: Dispatch queue: com.apple.main-thread\nEXC_CRASH (SIGABRT), 0x0000000000000000, 0x0000000000000000"
    );
    let got: Vec<(&str, Option<&str>, u64)> = crashed
        .frames
        .iter()
        .map(|f| {
            let i = f.input.as_ref().unwrap();
            (
                i.module.as_deref().unwrap(),
                i.function.as_deref(),
                i.module_offset.unwrap(),
            )
        })
        .collect();
    // Offsets: address − the image's load address in `Binary Images:`.
    assert_eq!(got[4], ("kaki", Some("main"), 0x100081a1c - 0x10007c000));
    assert_eq!(got[0].0, "libsystem_kernel.dylib");
    assert_eq!(got[0].1, Some("__pthread_kill"));
    assert_eq!(got.len(), 6);
    // Line numbers count the JSON header line.
    let line = text.lines().nth(crashed.frames[0].line_no - 1).unwrap();
    assert_eq!(line, crashed.frames[0].raw);
    let kaki = trace.modules.iter().find(|m| m.name == "kaki").unwrap();
    assert_eq!(
        kaki.id.as_deref(),
        Some("5FD6C4CA-5549-3855-959F-BE077158C67A")
    );
}

/// The CrashProbe iOS-simulator events (Sentry JSON) symbolicated through the CLI with the
/// universal dSYM folder as dropped: the x86_64 slice is picked by the images' UUID, and
/// every CrashProbeiOS frame equals llvm-symbolizer's answer (`oracle-crashprobe.json`,
/// made by `tools/crashprobe_oracle.py`) and the function name the app itself recorded.
#[test]
fn crashprobe_events_resolve_with_the_universal_dsym() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/native/sentry-symbolic/crashprobe");
    let oracle: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("oracle-crashprobe.json")).unwrap(),
    )
    .unwrap();
    let dsym = root.join("simulator-CrashProbeiOS.app.dSYM");
    let mut checked = 0;
    for (event, frames) in oracle.as_object().unwrap() {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_symscope"))
            .args(["symbolicate", "--format", "json", "-s"])
            .arg(&dsym)
            .arg(root.join("x86_64").join(event))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(json["format"], "sentry-event");
        let stacks = json["stacks"].as_array().unwrap();
        assert_eq!(stacks[0]["crashed"], true, "{event}");
        assert!(stacks[1..].iter().all(|s| s["crashed"] == false));
        let all: Vec<&serde_json::Value> = stacks
            .iter()
            .flat_map(|s| s["frames"].as_array().unwrap())
            .collect();
        for want in frames.as_array().unwrap() {
            let addr = want["instruction_addr"].as_str().unwrap();
            let addr = format!("{:#x}", u64::from_str_radix(&addr[2..], 16).unwrap());
            let hits: Vec<_> = all
                .iter()
                .filter(|f| f["input"]["address"] == addr.as_str())
                .collect();
            assert!(!hits.is_empty(), "{event} {addr}");
            for f in hits {
                assert_eq!(f["status"], "resolved", "{event} {addr}: {f}");
                assert!(
                    f["symbol_file"]
                        .as_str()
                        .unwrap()
                        .ends_with("CrashProbeiOS")
                );
                let ours = f["resolved"].as_array().unwrap();
                let llvm = want["llvm_symbolizer"].as_array().unwrap();
                assert_eq!(ours.len(), llvm.len());
                for (o, l) in ours.iter().zip(llvm) {
                    assert_eq!(o["function"], l["FunctionName"]);
                    assert_eq!(o["file"], l["FileName"]);
                    assert_eq!(o["line"], l["Line"]);
                }
                assert_eq!(ours.last().unwrap()["function"], want["event_function"]);
                checked += 1;
            }
        }
        // A frame of an image whose dSYM is not given says which UUID is missing.
        let lib = all
            .iter()
            .find(|f| f["input"]["module"] == "CrashLibiOS")
            .unwrap();
        assert_eq!(lib["status"], "no_symbols");
        assert!(
            lib["note"]
                .as_str()
                .unwrap()
                .contains("F029C336-B4C8-3D23-A9FF-B9C7B3FB2D91"),
            "{}",
            lib["note"]
        );
    }
    assert!(checked >= 6);
}
