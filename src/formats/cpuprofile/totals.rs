//! A V8 CPU profile read as per-node totals from a stream, without its samples kept: what a
//! ranking (self and total time per function, folded stacks) needs. One of `samples` and
//! `timeDeltas` is held compactly until the other streams past (V8 writes `samples` first),
//! or, when the input can be opened again at an offset, `samples` is passed over and read
//! again beside `timeDeltas` (nothing held); the file itself is never held. Anything this reader does not take as plainly as
//! [`super::parse`] does (a syntax error, a float delta, a negative delta, which DevTools
//! answers by sorting the samples, an id the tree lacks, a duplicate or escaped key) makes it
//! answer `None`, and the caller reads the file whole: errors and warnings come from one
//! reader.

use super::super::json_stream::{Ints, Step, Stop, Stream};
use super::{Micros, ProfileError, Raw};
use crate::model::{NodeTotals, Profile};
use std::collections::HashMap;
use std::io::Read;

/// Reads `input` as a V8 CPU profile's totals; `None`: read it with [`super::parse`].
pub fn read_totals(input: impl Read) -> std::io::Result<Option<Profile>> {
    let mut s = Stream::new(input);
    answer(totals(&mut s, None))
}

/// The input again from a byte offset (a file opened anew and sought).
pub type Reopen<'a> = &'a dyn Fn(u64) -> std::io::Result<Box<dyn Read>>;

/// [`read_totals`] holding neither array: `samples`, which V8 writes first, is passed over
/// and read again through `reopen`, beside `timeDeltas`, so the profile's memory does not
/// grow with its samples.
pub fn read_totals_reopening(
    input: impl Read,
    reopen: Reopen<'_>,
) -> std::io::Result<Option<Profile>> {
    let mut s = Stream::new(input);
    answer(totals(&mut s, Some(reopen)))
}

fn answer(read: Step<Profile>) -> std::io::Result<Option<Profile>> {
    match read {
        Ok(p) => Ok(Some(p)),
        Err(Stop::Io(e)) => Err(e),
        Err(Stop::Whole) => Ok(None),
    }
}

/// The sample ids when they come first: held, or where they are, to be read again.
enum First {
    Held(Ids),
    /// The array's offset and length.
    At(u64, usize),
}

impl First {
    fn len(&self) -> usize {
        match self {
            First::Held(ids) => ids.len(),
            First::At(_, n) => *n,
        }
    }
}

/// Sample ids as recorded, two bytes each while they fit.
enum Ids {
    Narrow(Vec<u16>),
    Wide(Vec<u32>),
}

impl Ids {
    fn push(&mut self, id: i64) -> Step<()> {
        let id = u32::try_from(id).map_err(|_| Stop::Whole)?;
        match self {
            Ids::Narrow(v) => match u16::try_from(id) {
                Ok(n) => v.push(n),
                Err(_) => {
                    let mut wide: Vec<u32> = v.iter().map(|&n| u32::from(n)).collect();
                    wide.push(id);
                    *self = Ids::Wide(wide);
                }
            },
            Ids::Wide(v) => v.push(id),
        }
        Ok(())
    }

    fn len(&self) -> usize {
        match self {
            Ids::Narrow(v) => v.len(),
            Ids::Wide(v) => v.len(),
        }
    }

    fn get(&self, i: usize) -> u32 {
        match self {
            Ids::Narrow(v) => u32::from(v[i]),
            Ids::Wide(v) => v[i],
        }
    }
}

/// Self time and hits by sample id as recorded.
#[derive(Default)]
struct ById {
    dense: Vec<(i64, u64)>,
    sparse: HashMap<u32, (i64, u64)>,
}

impl ById {
    #[inline]
    fn add(&mut self, id: u32, us: i64) {
        let slot = if id < 1 << 20 {
            let i = id as usize;
            if i >= self.dense.len() {
                self.dense.resize(i + 1, (0, 0));
            }
            &mut self.dense[i]
        } else {
            self.sparse.entry(id).or_default()
        };
        slot.0 = slot.0.saturating_add(us);
        slot.1 += 1;
    }

    fn iter(&self) -> impl Iterator<Item = (u32, (i64, u64))> + '_ {
        self.dense
            .iter()
            .enumerate()
            .filter(|(_, s)| s.1 > 0)
            .map(|(i, &s)| (i as u32, s))
            .chain(self.sparse.iter().map(|(&i, &s)| (i, s)))
    }
}

/// The times of the samples as they stream: each sample's duration is known once the next
/// one's time is (DevTools' rule, [`Profile::sample_durations_us`]).
struct Clock {
    t: i64,
    first: i64,
    count: usize,
}

impl Clock {
    fn new(start: i64) -> Self {
        Self {
            t: start,
            first: start,
            count: 0,
        }
    }

    /// Takes a delta; answers the previous sample's duration (none for the first).
    #[inline]
    fn tick(&mut self, delta: i64) -> Step<Option<i64>> {
        if delta < 0 {
            return Err(Stop::Whole);
        }
        let t = self.t.saturating_add(delta);
        let before = std::mem::replace(&mut self.t, t);
        self.count += 1;
        Ok(if self.count == 1 {
            self.first = t;
            None
        } else {
            Some(t.saturating_sub(before))
        })
    }

    /// The last sample's duration.
    fn last(&self, end: i64) -> i64 {
        match self.count {
            1 => end.saturating_sub(self.first).max(0),
            n => self.t.saturating_sub(self.first) / (n as i64 - 1),
        }
    }
}

fn totals<R: Read>(s: &mut Stream<R>, reopen: Option<Reopen<'_>>) -> Step<Profile> {
    let mut nodes: Option<Vec<u8>> = None;
    let mut start: Option<Micros> = None;
    let mut end: Option<Micros> = None;
    // The first of the two arrays, held (or where it is); the second streams into `sums`.
    let mut ids: Option<First> = None;
    let mut deltas: Option<Vec<i64>> = None;
    let mut sums = ById::default();
    // The last sample and the clock after it: its duration may need `endTime`, which can
    // come later in the file.
    let mut last: Option<(u32, Clock)> = None;
    let mut count = 0usize;
    let mut seen: Vec<Vec<u8>> = Vec::new();
    let number =
        |bytes: &[u8]| -> Step<Micros> { serde_json::from_slice(bytes).map_err(|_| Stop::Whole) };
    s.expect(b'{')?;
    let mut first = true;
    loop {
        match s.peek_token()? {
            Some(b'}') => {
                s.at += 1;
                break;
            }
            Some(b',') if !first => s.at += 1,
            _ if first => {}
            _ => return Err(Stop::Whole),
        }
        first = false;
        s.expect(b'"')?;
        let key = s.key()?;
        if seen.contains(&key) {
            return Err(Stop::Whole);
        }
        s.expect(b':')?;
        match key.as_slice() {
            b"nodes" => {
                let mut bytes = Vec::new();
                s.value(&mut bytes)?;
                nodes = Some(bytes);
            }
            b"startTime" | b"endTime" => {
                let mut bytes = Vec::new();
                s.value(&mut bytes)?;
                let v = Some(number(&bytes)?);
                if key == b"startTime" {
                    start = v;
                } else {
                    end = v;
                }
            }
            b"samples" => match &deltas {
                None if reopen.is_some() => {
                    s.peek_token()?;
                    let at = s.position();
                    let mut n = 0usize;
                    s.ints(|id| {
                        u32::try_from(id).map_err(|_| Stop::Whole)?;
                        n += 1;
                        Ok(())
                    })?;
                    ids = Some(First::At(at, n));
                }
                None => {
                    let mut held = Ids::Narrow(Vec::new());
                    s.ints(|id| held.push(id))?;
                    ids = Some(First::Held(held));
                }
                Some(deltas) => {
                    // The times are known: each sample's duration is too.
                    let start = start.ok_or(Stop::Whole)?.0;
                    let mut clock = Clock::new(start);
                    let mut at = 0usize;
                    let mut prev: Option<u32> = None;
                    s.ints(|id| {
                        let id = u32::try_from(id).map_err(|_| Stop::Whole)?;
                        let d = *deltas.get(at).ok_or(Stop::Whole)?;
                        if let (Some(p), Some(us)) = (prev, clock.tick(d)?) {
                            sums.add(p, us);
                        }
                        prev = Some(id);
                        at += 1;
                        Ok(())
                    })?;
                    if at != deltas.len() {
                        return Err(Stop::Whole);
                    }
                    count = at;
                    last = prev.map(|p| (p, clock));
                }
            },
            b"timeDeltas" => match &ids {
                None => {
                    let mut held = Vec::new();
                    s.ints(|d| {
                        held.push(d);
                        Ok(())
                    })?;
                    deltas = Some(held);
                }
                Some(first) => {
                    let start = start.ok_or(Stop::Whole)?.0;
                    let mut clock = Clock::new(start);
                    let len = first.len();
                    // Passed over: read again beside the deltas.
                    let mut again = match (first, reopen) {
                        (First::At(offset, _), Some(reopen)) => {
                            Some(Ints::new(Stream::new(reopen(*offset)?))?)
                        }
                        _ => None,
                    };
                    let mut at = 0usize;
                    let mut prev: Option<u32> = None;
                    s.ints(|d| {
                        if at >= len {
                            return Err(Stop::Whole);
                        }
                        let id = match (first, &mut again) {
                            (First::Held(ids), _) => ids.get(at),
                            (First::At(..), Some(again)) => {
                                let id = again.next_int()?.ok_or(Stop::Whole)?;
                                u32::try_from(id).map_err(|_| Stop::Whole)?
                            }
                            (First::At(..), None) => return Err(Stop::Whole),
                        };
                        if let (Some(p), Some(us)) = (prev, clock.tick(d)?) {
                            sums.add(p, us);
                        }
                        prev = Some(id);
                        at += 1;
                        Ok(())
                    })?;
                    if at != len {
                        return Err(Stop::Whole);
                    }
                    count = at;
                    last = prev.map(|p| (p, clock));
                }
            },
            _ => {
                // Passed over, but held to JSON as the whole reader would be.
                let mut bytes = Vec::new();
                s.value(&mut bytes)?;
                serde_json::from_slice::<serde::de::IgnoredAny>(&bytes).map_err(|_| Stop::Whole)?;
            }
        }
        seen.push(key);
    }
    if s.peek_token()?.is_some() {
        return Err(Stop::Whole);
    }
    let nodes: Vec<serde_json::Value> = match nodes {
        Some(bytes) => serde_json::from_slice(&bytes).map_err(|_| Stop::Whole)?,
        None => return Err(Stop::Whole),
    };
    // No samples, or one array without the other: the whole reader says what it makes of
    // that.
    if count == 0 {
        return Err(Stop::Whole);
    }
    let raw = Raw {
        nodes: Some(nodes),
        start,
        end,
        samples: Vec::new(),
        deltas: Vec::new(),
    };
    let (mut profile, node_ids) =
        super::tree(raw.nodes, raw.start, raw.end).map_err(|_: ProfileError| Stop::Whole)?;
    let mut totals = NodeTotals {
        self_us: vec![0; profile.nodes.len()],
        hits: vec![0; profile.nodes.len()],
        samples: count,
    };
    let mut add = |id: u32, us: i64, hits: u64| -> Step<()> {
        let n = node_ids.get(u64::from(id)).ok_or(Stop::Whole)? as usize;
        totals.self_us[n] = totals.self_us[n].saturating_add(us);
        totals.hits[n] += hits;
        Ok(())
    };
    for (id, (us, hits)) in sums.iter() {
        add(id, us, hits)?;
    }
    if let Some((id, clock)) = last {
        add(id, clock.last(profile.end_us), 1)?;
    }
    profile.totals = Some(totals);
    Ok(profile)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The totals of `text`, or `None`.
    /// The totals, read holding the sample ids and read again through a reopened input:
    /// both answer alike.
    fn totals_of(text: &str) -> Option<Profile> {
        let held = read_totals(text.as_bytes()).unwrap();
        let bytes: std::sync::Arc<[u8]> = text.as_bytes().into();
        let reopen = move |at: u64| -> std::io::Result<Box<dyn Read>> {
            let mut c = std::io::Cursor::new(bytes.clone());
            c.set_position(at);
            Ok(Box::new(c))
        };
        let again = read_totals_reopening(text.as_bytes(), &reopen).unwrap();
        assert_eq!(format!("{held:?}"), format!("{again:?}"));
        held
    }

    /// The totals reader agrees with the whole reader: same tree, same per-node totals.
    fn agrees(text: &str) {
        let whole = super::super::parse(text).unwrap();
        let t = totals_of(text).expect("read as totals");
        assert_eq!(t.nodes, whole.nodes);
        assert_eq!(t.locations, whole.locations);
        assert_eq!((t.start_us, t.end_us), (whole.start_us, whole.end_us));
        assert_eq!(t.warnings, whole.warnings);
        assert_eq!(t.self_us(), whole.self_us());
        assert_eq!(t.hits(), whole.hits());
        assert_eq!(t.sample_count(), whole.samples.len());
        assert!(t.samples.is_empty() && t.times_us.is_empty());
    }

    fn fixture(name: &str) -> String {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/profiles")
            .join(name);
        std::fs::read_to_string(path).unwrap()
    }

    use super::super::tests::SMALL;

    #[test]
    fn recorded_profiles_read_as_the_whole_reader_reads_them() {
        agrees(&fixture("lodash-min.cpuprofile"));
        agrees(&fixture("lodash-unminified.cpuprofile"));
        agrees(SMALL);
    }

    #[test]
    fn any_key_order_and_any_ids() {
        // The deltas before the samples, `endTime` last.
        agrees(&SMALL.replace(",\"endTime\":1100", "").replace(
            "\"samples\":[4,4,2,3],\"timeDeltas\":[10,20,30,10]",
            "\"timeDeltas\":[10,20,30,10],\"samples\":[4,4,2,3],\"endTime\":1100",
        ));
        // One sample lasts until `endTime`, which comes after it.
        agrees(&SMALL.replace(",\"endTime\":1100", "").replace(
            "[4,4,2,3],\"timeDeltas\":[10,20,30,10]",
            "[4],\"timeDeltas\":[10],\"endTime\":1100",
        ));
        // Ids past two bytes, and far apart (no dense table).
        agrees(&SMALL.replace('4', "70000"));
        agrees(&SMALL.replace('4', "4000000000"));
        // Fields the reader passes over.
        agrees(&SMALL.replace(
            "\"startTime\"",
            "\"$x\":{\"a\":[\"]}\\\"\",1.5e3,null]},\"startTime\"",
        ));
        // A zero delta and a zero id are numbers like any other.
        agrees(&SMALL.replace("[10,20,30,10]", "[0,20,0,10]"));
    }

    #[test]
    fn what_it_does_not_take_plainly_goes_to_the_whole_reader() {
        for (from, to) in [
            ("[10,20,30,10]", "[10,20,-15,10]"), // DevTools sorts: the whole reader does
            ("[10,20,30,10]", "[10,20.5,30,10]"), // a float delta
            ("[10,20,30,10]", "[10,020,30,10]"), // not JSON
            ("[10,20,30,10]", "[10,20,30,10,]"),
            ("[10,20,30,10]", "[10,20,30]"), // counts differ
            ("[4,4,2,3]", "[4,9,2,3]"),      // an unknown node
            ("\"startTime\"", "\"x\":{],\"startTime\""),
            ("\"samples\"", "\"s\\u0061mples\""),
            ("\"endTime\":1100", "\"endTime\":1100,\"samples\":[]"),
        ] {
            let text = SMALL.replace(from, to);
            assert_ne!(text, SMALL);
            assert!(totals_of(&text).is_none(), "{to}");
        }
        assert!(totals_of(&SMALL[..SMALL.len() - 3]).is_none());
        assert!(totals_of("[]").is_none());
        assert!(totals_of(&format!("{SMALL} x")).is_none());
    }
}
