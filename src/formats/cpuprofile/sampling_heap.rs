//! Sampling heap profiles (`.heapprofile`: `node --heap-prof`, DevTools' "Allocation
//! sampling", the inspector's `HeapProfiler.stopSampling`): `{"head": NODE, "samples":
//! [{"size", "nodeId", "ordinal"}]}`, each NODE `{"callFrame", "selfSize", "id",
//! "children": [NODE…]}` nested as deep as the stacks. Read without recursion into the CPU
//! profiles' call tree, weighed in bytes: each node's `selfSize` (the bytes sampled there,
//! scaled as V8 reports them, what DevTools' Self Size shows) and its samples' count.

use super::{Micros, ProfileError, tree};
use crate::formats::json_stream::{Step, Stop, Stream};
use crate::model::{NodeTotals, Profile, Weight};
use serde_json::{Value, json};

/// Whether `bytes` look like a sampling heap profile (`{"head":{"callFrame"…`), from its
/// first kilobytes.
pub fn is_heap_profile(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(4096)];
    let text = String::from_utf8_lossy(head);
    let t = text.trim_start();
    t.starts_with('{')
        && t.contains("\"head\"")
        && t.contains("\"callFrame\"")
        && t.contains("\"selfSize\"")
}

/// A node as read: its fields, its children's ids.
struct Node {
    id: Option<u64>,
    call_frame: Value,
    self_size: i64,
    children: Vec<u64>,
}

/// Reads a sampling heap profile.
pub fn parse_heap_profile(text: &str) -> Result<Profile, ProfileError> {
    let mut s = Stream::new(text.as_bytes());
    let mut nodes: Vec<Node> = Vec::new();
    let mut samples: Vec<u64> = Vec::new();
    let mut why: Option<ProfileError> = None;
    let result = s.object(|s, key| match key {
        "head" => read_tree(s, &mut nodes, &mut why),
        "samples" => s.array(|s| {
            let mut node = None;
            s.object_in(|s, key| {
                match key {
                    "nodeId" => {
                        s.peek_token()?;
                        node = Some(s.int()?);
                    }
                    _ => s.value(&mut Vec::new())?,
                }
                Ok(())
            })?;
            let id = node.and_then(|n| u64::try_from(n).ok());
            samples.push(id.ok_or(Stop::Whole)?);
            Ok(())
        }),
        _ => s.value(&mut Vec::new()),
    });
    if let Some(e) = why {
        return Err(e);
    }
    if result.is_err() {
        return Err(ProfileError::Json(
            "not a sampling heap profile's JSON (truncated, or a field of the wrong type)".into(),
        ));
    }
    if nodes.is_empty() {
        return Err(ProfileError::Field("no `head` node"));
    }
    let mut self_sizes = Vec::with_capacity(nodes.len());
    let listed: Vec<Value> = nodes
        .into_iter()
        .map(|n| {
            self_sizes.push(n.self_size.max(0));
            json!({"id": n.id, "callFrame": n.call_frame, "children": n.children})
        })
        .collect();
    let ids: Vec<Option<u64>> = listed.iter().map(|n| n["id"].as_u64()).collect();
    let (mut profile, by_id) = tree(Some(listed), Some(Micros(0)), None)?;
    let n = profile.nodes.len();
    let mut totals = NodeTotals {
        self_us: vec![0; n],
        hits: vec![0; n],
        samples: samples.len(),
    };
    for (id, size) in ids.iter().zip(self_sizes) {
        if let Some(k) = id.and_then(|id| by_id.get(id)) {
            totals.self_us[k as usize] = size;
        }
    }
    // V8 writes samples of nodes its call tree leaves out: counted nowhere, said.
    let mut unknown = 0usize;
    for &id in &samples {
        match by_id.get(id) {
            Some(k) => totals.hits[k as usize] += 1,
            None => unknown += 1,
        }
    }
    if unknown > 0 {
        profile.warnings.push(format!(
            "{unknown} samples name nodes the call tree does not have (not counted)"
        ));
    }
    // Without samples (an older file), each node with bytes counts once.
    if samples.is_empty() {
        for (h, &b) in totals.hits.iter_mut().zip(&totals.self_us) {
            *h = u64::from(b > 0);
        }
    }
    profile.totals = Some(totals);
    profile.weight = Weight::Bytes;
    Ok(profile)
}

/// Reads the nested nodes from `head` into `nodes`, parents first, with an explicit stack.
fn read_tree<R: std::io::Read>(
    s: &mut Stream<R>,
    nodes: &mut Vec<Node>,
    why: &mut Option<ProfileError>,
) -> Step<()> {
    /// Where the reader is: in a node's object, or in its `children` array.
    enum At {
        Node { node: usize, first: bool },
        Children { parent: usize, first: bool },
    }
    let open = |s: &mut Stream<R>, nodes: &mut Vec<Node>| -> Step<usize> {
        s.expect(b'{')?;
        nodes.push(Node {
            id: None,
            call_frame: Value::Null,
            self_size: 0,
            children: Vec::new(),
        });
        Ok(nodes.len() - 1)
    };
    let mut stack = vec![At::Node {
        node: open(s, nodes)?,
        first: true,
    }];
    let mut kept = Vec::new();
    let mut key = String::new();
    while let Some(top) = stack.last_mut() {
        match top {
            At::Node { node, first } => {
                let node = *node;
                match s.peek_token()? {
                    Some(b'}') => {
                        s.at += 1;
                        stack.pop();
                        // The node is whole: its id is known, so its parent can list it.
                        if let Some(At::Children { parent, .. }) = stack.last() {
                            let Some(id) = nodes[node].id else {
                                *why = Some(ProfileError::Field("a node without a numeric `id`"));
                                return Err(Stop::Whole);
                            };
                            nodes[*parent].children.push(id);
                        }
                        continue;
                    }
                    Some(b',') if !*first => s.at += 1,
                    _ if *first => {}
                    _ => return Err(Stop::Whole),
                }
                *first = false;
                s.expect(b'"')?;
                key.clear();
                s.string(&mut key)?;
                s.expect(b':')?;
                match key.as_str() {
                    "id" => {
                        s.peek_token()?;
                        nodes[node].id = Some(u64::try_from(s.int()?).map_err(|_| Stop::Whole)?);
                    }
                    "selfSize" => {
                        s.peek_token()?;
                        nodes[node].self_size = s.int()?;
                    }
                    "callFrame" => {
                        kept.clear();
                        s.value(&mut kept)?;
                        nodes[node].call_frame =
                            serde_json::from_slice(&kept).map_err(|_| Stop::Whole)?;
                    }
                    "children" => {
                        s.expect(b'[')?;
                        stack.push(At::Children {
                            parent: node,
                            first: true,
                        });
                    }
                    _ => {
                        kept.clear();
                        s.value(&mut kept)?;
                    }
                }
            }
            At::Children { parent, first } => {
                let parent = *parent;
                match s.peek_token()? {
                    Some(b']') => {
                        s.at += 1;
                        stack.pop();
                        continue;
                    }
                    Some(b',') if !*first => s.at += 1,
                    _ if *first => {}
                    _ => return Err(Stop::Whole),
                }
                *first = false;
                let _ = parent;
                let node = open(s, nodes)?;
                stack.push(At::Node { node, first: true });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_tree_deeper_than_a_recursive_reader_goes() {
        let frame = r#""callFrame":{"functionName":"f","scriptId":"1","url":"a.js","lineNumber":1,"columnNumber":2}"#;
        let depth = 3000;
        let mut text = String::from(r#"{"head":"#);
        for i in 0..depth {
            text.push_str(&format!(
                r#"{{{frame},"selfSize":{},"id":{},"children":["#,
                i % 5,
                i + 1
            ));
        }
        text.push_str(&"]}".repeat(depth));
        text.push_str(r#","samples":[{"size":8,"nodeId":3,"ordinal":1},{"size":8,"nodeId":3000,"ordinal":2}]}"#);
        assert!(is_heap_profile(text.as_bytes()));
        let p = parse_heap_profile(&text).unwrap();
        assert_eq!(p.nodes.len(), depth);
        assert_eq!(p.nodes[depth - 1].parent, Some(depth as u32 - 2));
        let t = p.totals.as_ref().unwrap();
        assert_eq!(t.self_us[3], 3);
        assert_eq!((t.hits[2], t.hits[depth - 1]), (1, 1));
        assert_eq!(p.weight, Weight::Bytes);
        // Siblings after a subtree hang from the right parent.
        let text = text.replacen(
            r#""children":[]"#,
            &format!(r#""children":[{{{frame},"selfSize":1,"id":9001,"children":[{{{frame},"selfSize":1,"id":9002,"children":[]}}]}},{{{frame},"selfSize":1,"id":9003,"children":[]}}]"#),
            1,
        );
        let p = parse_heap_profile(&text).unwrap();
        let at = |id: u64| p.nodes.iter().position(|n| n.id == id).unwrap() as u32;
        assert_eq!(p.nodes[at(9003) as usize].parent, Some(at(3000)));
        assert_eq!(p.nodes[at(9002) as usize].parent, Some(at(9001)));
    }
}
