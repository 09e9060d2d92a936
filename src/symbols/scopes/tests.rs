use super::*;

/// The name of the function enclosing the first `@` in `src` (the `@` is removed), its parts
/// joined with dots; `<anonymous>` or `<top>`.
/// Each answer's dotted name (`A.b`), or the scope's kind when it has none.
fn names_of(src: &str, found: &[Option<Found>]) -> Vec<String> {
    found
        .iter()
        .map(|f| match &f.as_ref().expect("parsed").scope {
            Scope::Named(p) => p
                .iter()
                .map(|r| &src[r.clone()])
                .collect::<Vec<_>>()
                .join("."),
            other => format!("{other:?}"),
        })
        .collect()
}

fn name_at(src: &str) -> String {
    let at = src.find('@').unwrap();
    let text = src.replacen('@', "", 1);
    let found = enclosing_functions(&text, &[at]).remove(0).expect("parsed");
    match found.scope {
        Scope::Named(parts) => parts
            .iter()
            .map(|r| &text[r.clone()])
            .collect::<Vec<_>>()
            .join("."),
        Scope::Anonymous => "<anonymous>".to_owned(),
        Scope::TopLevel => "<top>".to_owned(),
    }
}

#[test]
fn names_as_v8_gives_them() {
    let cases = [
        ("function warn(m){console.log(@m)}", "warn"),
        ("class XRef{parse(){this.@a()}}", "XRef.parse"),
        ("class XRef{static parse(){@a()}}", "XRef.parse"),
        (
            "var De=class{expandByObject(t){@t.x()}}",
            "De.expandByObject",
        ),
        ("class A{constructor(){@x()}}", "A"),
        ("var a=function(){@x()}", "a"),
        ("var a=function b(){@x()}", "b"),
        ("const f=(x)=>{@g(x)}", "f"),
        ("a.b.c=function(){@x()}", "a.b.c"),
        ("A.prototype.run=function(){@x()}", "A.run"),
        ("this.go=function(){@x()}", "go"),
        ("x={load:function(){@y()}}", "load"),
        ("x={load(){@y()}}", "load"),
        ("x={'load':()=>{@y()}}", "load"),
        ("class A{h=()=>{@y()}}", "h"),
        ("class A{#p(){@y()}}", "A.#p"),
        ("var o={a:1,b:()=>{@y()}}", "b"),
        // Through a conditional's branches, a logical's right side, parentheses.
        ("n._next=r?function(a){@x()}:e.prototype._next", "n._next"),
        ("n._next=r?e:function(a){@x()}", "n._next"),
        ("var f=a||function(){@x()}", "f"),
        ("this.go=(function(){@x()})", "go"),
    ];
    for (src, want) in cases {
        assert_eq!(name_at(src), want, "{src}");
    }
}

#[test]
fn anonymous_stays_anonymous() {
    let cases = [
        // A callback is not named after the function it is passed to or its parameter.
        ("function go(cb){cb()}go(function(){@x()})", "<anonymous>"),
        ("arr.forEach(v=>@v.run())", "<anonymous>"),
        ("(function(){@x()})()", "<anonymous>"),
        ("p.then(()=>{@x()})", "<anonymous>"),
        ("x=1;@foo();", "<top>"),
        // The innermost function wins, however deep.
        ("class A{m(){return [1].map(v=>{@v()})}}", "<anonymous>"),
        ("class A{m(){function inner(){@q()}}}", "inner"),
    ];
    for (src, want) in cases {
        assert_eq!(name_at(src), want, "{src}");
    }
}

#[test]
fn slices_not_the_whole_file() {
    // A big file: the function holding the position is found by parsing little of it.
    let mut src = String::new();
    for i in 0..2000 {
        src.push_str(&format!("function f{i}(a){{return a.map(x=>x*{i})}}\n"));
    }
    let at = src.len();
    src.push_str("class Big{\n  parse(){\n    this.x();\n  }\n}\n");
    for i in 0..2000 {
        src.push_str(&format!("var g{i}=function(){{return {i}}};\n"));
    }
    let pos = at + src[at..].find("this.x").unwrap();
    let found = enclosing_functions(&src, &[pos]).remove(0).unwrap();
    let Scope::Named(parts) = &found.scope else {
        panic!("{found:?}");
    };
    let name: Vec<&str> = parts.iter().map(|r| &src[r.clone()]).collect();
    assert_eq!(name, ["Big", "parse"]);
    assert!(found.parsed < 200, "{found:?}");
}

#[test]
fn many_positions_in_one_minified_line() {
    let src = "var A=class{a(){x()}b(){y()}},B=function(){z()};function C(){w(()=>{v()})}";
    let offs: Vec<usize> = ["x()", "y()", "z()", "w(", "v()"]
        .iter()
        .map(|p| src.find(p).unwrap())
        .collect();
    let got = names_of(src, &enclosing_functions(src, &offs));
    assert_eq!(got, ["A.a", "A.b", "B", "C", "Anonymous"]);
}

#[test]
fn a_misleading_scan_falls_back_to_the_whole_file() {
    // `a++ / b / c` reads as a regular expression to the scanner: the slices fail, the whole
    // file still answers.
    let src = "function f(){var a=1,b=2,c=3;a++ /b/ (c);g()}";
    let pos = src.find("g()").unwrap();
    let found = enclosing_functions(src, &[pos]).remove(0).unwrap();
    let Scope::Named(parts) = found.scope else {
        panic!("{found:?}");
    };
    assert_eq!(
        parts.iter().map(|r| &src[r.clone()]).collect::<Vec<_>>(),
        ["f"]
    );
}

#[test]
fn not_javascript() {
    assert_eq!(enclosing_functions("<html><body>", &[3]), vec![None]);
    // Offsets past the end are clamped, never a panic.
    assert!(enclosing_functions("f()", &[100]).len() == 1);
}

#[test]
fn a_case_of_a_switch_is_parsed_alone() {
    // A frame in a long `switch` case: only the case's statement is parsed (under a `default:`
    // label), the cases before it left out.
    let mut src = String::from("function render(t){switch(t.kind){");
    for i in 0..300 {
        src.push_str(&format!("case {i}:go({i});break;"));
    }
    src.push_str("case 'x':if(t.a){");
    src.push_str(&"t.b();".repeat(500));
    src.push_str("}else @draw(t);return}}");
    let at = src.find('@').unwrap();
    let src = src.replacen('@', "", 1);
    let found = enclosing_functions(&src, &[at]).remove(0).unwrap();
    let Scope::Named(parts) = &found.scope else {
        panic!("{found:?}");
    };
    assert_eq!(&src[parts[0].clone()], "render");
    // The 3 KB `if` block before the position is left out too.
    assert!(found.parsed < 400, "{found:?}");
}

#[test]
fn long_blocks_before_the_position_are_left_out() {
    let body = "a.b(c);".repeat(400);
    let src =
        format!("var o={{first(){{{body}}},second:function(){{{body}}}}},p=function(){{x()}};");
    let pos = src.find("x()").unwrap();
    let first = src.find("a.b(c)").unwrap();
    let found = enclosing_functions(&src, &[pos, first]);
    let names = names_of(&src, &found);
    assert_eq!(names, ["p", "first"]);
    assert!(found[0].as_ref().unwrap().parsed < 300, "{found:?}");
}

#[test]
fn a_failed_restart_falls_back_to_the_start() {
    // `g()` sits at column 0 after a `;` line, but inside an IIFE: scanned from its line, a `}`
    // closes nothing, and the scan from the start answers (anonymous, not top-level code).
    let src =
        "function a(){\n  b();\n}\n(function(){\nvar z=0;\ng()\n})();\nfunction c(){\n  d();\n}\n";
    let offs = [
        src.find("b()").unwrap(),
        src.find("g()").unwrap(),
        src.find("d()").unwrap(),
    ];
    let got: Vec<Scope> = enclosing_functions(src, &offs)
        .into_iter()
        .map(|f| f.unwrap().scope)
        .collect();
    let a = src.find("a(").unwrap();
    let c = src.find("c(").unwrap();
    assert_eq!(
        got,
        [
            Scope::Named(std::iter::once(a..a + 1).collect()),
            Scope::Anonymous,
            Scope::Named(std::iter::once(c..c + 1).collect())
        ]
    );
}
