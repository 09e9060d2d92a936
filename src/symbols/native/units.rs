//! Which compilation units hold an address, without parsing every unit: for each unit only
//! its header and its root DIE are read, through an abbreviation table of the root's one
//! declaration (a unit's whole table is parsed only when the root is not its first entry).
//! The ranges come, as `addr2line` takes them, from `DW_AT_ranges`, else `.debug_aranges`,
//! else `DW_AT_low_pc`/`DW_AT_high_pc`, else the line program's sequences.
//!
//! [`UnitIndex::debug_info_of`] then writes a `.debug_info` holding only chosen units at their
//! own offsets, every gap between them one unit that readers fail at its first DIE and pass
//! by, so that `addr2line` reads those units and no other. The buffer is anonymous memory,
//! which costs nothing where it is not written.

use gimli::{
    AttributeValue, DebugAbbrevOffset, DebugAddrBase, DebugRngListsBase, EndianSlice, Reader as _,
    RunTimeEndian, UnitType,
};
use std::sync::Arc;

type Slice<'d> = EndianSlice<'d, RunTimeEndian>;

/// A unit's bytes in `.debug_info`, and its abbreviation table.
#[derive(Clone, Copy, Debug)]
struct UnitBytes {
    start: usize,
    end: usize,
    abbrev: u64,
}

/// Code a unit covers.
#[derive(Clone, Copy, Debug)]
struct Span {
    begin: u64,
    end: u64,
    unit: u32,
}

/// The compilation units of one object's DWARF and the code each covers.
#[derive(Debug, Default)]
pub(super) struct UnitIndex {
    units: Vec<UnitBytes>,
    /// By `begin`.
    spans: Vec<Span>,
    /// `max_end[i]`: the largest `end` of `spans[..=i]`.
    max_end: Vec<u64>,
}

/// A table of the declaration of abbreviation `code` alone, from the table at `offset`:
/// the declarations before it are stepped over, not parsed into a table.
fn declaration(
    debug_abbrev: &[u8],
    offset: usize,
    code: u64,
    endian: RunTimeEndian,
) -> Option<gimli::Abbreviations> {
    let mut input = Slice::new(debug_abbrev.get(offset..)?, endian);
    loop {
        let start = input;
        let this = input.read_uleb128().ok()?;
        if this == 0 {
            return None; // the table's end
        }
        input.read_uleb128().ok()?; // tag
        input.read_u8().ok()?; // children
        loop {
            let name = input.read_uleb128().ok()?;
            let form = input.read_uleb128().ok()?;
            if form == u64::from(gimli::DW_FORM_implicit_const.0) {
                input.read_sleb128().ok()?;
            }
            if name == 0 && form == 0 {
                break;
            }
        }
        if this == code {
            let len = start.len() - input.len();
            let mut table = start.slice()[..len].to_vec();
            table.push(0);
            return gimli::DebugAbbrev::new(&table, endian)
                .abbreviations(DebugAbbrevOffset(0))
                .ok();
        }
    }
}

/// Whether the line program at `offset` has no instructions (a unit without code): its
/// header's lengths say so, nothing else is read.
fn empty_line_program(debug_line: &[u8], offset: usize, endian: RunTimeEndian) -> bool {
    let read = || -> Option<bool> {
        let mut input = Slice::new(debug_line.get(offset..)?, endian);
        let (length, offset_size) = match input.read_u32().ok()? {
            0xffff_ffff => (usize::try_from(input.read_u64().ok()?).ok()?, 8),
            l => (l as usize, 4),
        };
        let unit = input;
        let version = input.read_u16().ok()?;
        if version >= 5 {
            input.skip(2).ok()?; // address size, segment selector size
        }
        let header_length = if offset_size == 8 {
            usize::try_from(input.read_u64().ok()?).ok()?
        } else {
            input.read_u32().ok()? as usize
        };
        let header_end = (unit.len() - input.len()).checked_add(header_length)?;
        Some(header_end >= length)
    };
    read().unwrap_or(false)
}

/// The bytes of the sections the index reads itself.
#[derive(Clone, Copy)]
struct Raw<'a> {
    info: &'a [u8],
    debug_abbrev: &'a [u8],
    debug_line: &'a [u8],
    endian: RunTimeEndian,
}

/// One-declaration tables by (table offset, code); `None` where the table has no such code.
type RootTables = std::collections::HashMap<(usize, u64), Option<Arc<gimli::Abbreviations>>>;

/// What a root DIE says of a unit's code.
struct Root<'d> {
    low_pc: Option<AttributeValue<Slice<'d>>>,
    high_pc: Option<AttributeValue<Slice<'d>>>,
    ranges: Option<AttributeValue<Slice<'d>>>,
    addr_base: DebugAddrBase<usize>,
    rnglists_base: DebugRngListsBase<usize>,
    stmt_list: Option<gimli::DebugLineOffset<usize>>,
}

impl UnitIndex {
    /// Indexes the units of `dwarf`, whose `.debug_info` is `info`, `.debug_abbrev`
    /// `debug_abbrev` and `.debug_line` `debug_line`.
    pub(super) fn new(
        dwarf: &gimli::Dwarf<Slice<'_>>,
        info: &[u8],
        debug_abbrev: &[u8],
        debug_line: &[u8],
        endian: RunTimeEndian,
    ) -> Self {
        let mut index = Self::default();
        // Root DIEs' declarations by (table, code): many units share one table.
        let mut roots = RootTables::default();
        // `.debug_aranges` sets by the unit they describe.
        let mut aranges = Vec::new();
        let mut headers = dwarf.debug_aranges.headers();
        while let Ok(Some(h)) = headers.next() {
            aranges.push((h.debug_info_offset().0, h.offset()));
        }
        aranges.sort_by_key(|a| a.0);
        let mut headers = dwarf.units();
        while let Ok(Some(header)) = headers.next() {
            let Some(start) = header.offset().as_debug_info_offset().map(|o| o.0) else {
                continue;
            };
            let end = start + header.length_including_self();
            if matches!(
                header.type_(),
                UnitType::Type { .. } | UnitType::SplitType { .. }
            ) {
                continue;
            }
            let unit = index.units.len() as u32;
            index.units.push(UnitBytes {
                start,
                end,
                abbrev: header.debug_abbrev_offset().0 as u64,
            });
            if header.type_() == UnitType::Partial {
                continue;
            }
            let mut spans = Vec::new();
            let raw = Raw {
                info,
                debug_abbrev,
                debug_line,
                endian,
            };
            index_unit(dwarf, &raw, &header, &aranges, &mut roots, &mut |b, e| {
                spans.push(Span {
                    begin: b,
                    end: e,
                    unit,
                });
            });
            index.spans.extend(spans);
        }
        index.spans.sort_by_key(|s| (s.begin, s.unit));
        let mut max = 0;
        index.max_end = index
            .spans
            .iter()
            .map(|s| {
                max = max.max(s.end);
                max
            })
            .collect();
        index
    }

    /// Every range of code a unit covers (`begin`, `end`, unit).
    #[cfg(test)]
    pub(super) fn spans(&self) -> impl Iterator<Item = (u64, u64, u32)> + '_ {
        self.spans.iter().map(|s| (s.begin, s.end, s.unit))
    }

    /// The units whose code holds `addr` (as DWARF states addresses), by unit order.
    pub(super) fn units_at(&self, addr: u64) -> Vec<u32> {
        let mut out = Vec::new();
        let mut i = self.spans.partition_point(|s| s.begin <= addr);
        while i > 0 && self.max_end[i - 1] > addr {
            i -= 1;
            if self.spans[i].end > addr {
                out.push(self.spans[i].unit);
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The unit whose bytes hold `.debug_info` offset `offset`.
    fn unit_of(&self, offset: usize) -> Option<u32> {
        let i = self
            .units
            .partition_point(|u| u.start <= offset)
            .checked_sub(1)?;
        (offset < self.units[i].end).then_some(i as u32)
    }

    /// `units` and the units their functions' names lead into: a function or an inlined
    /// call names its origin or declaration (`DW_AT_abstract_origin`,
    /// `DW_AT_specification`) by a section offset (`DW_FORM_ref_addr`) into another unit,
    /// whose DIE may lead on. `addr2line` fails a look-up whose names lead outside its units.
    pub(super) fn with_referenced(
        &self,
        dwarf: &gimli::Dwarf<Slice<'_>>,
        units: &[u32],
        tables: &mut dyn FnMut(u64) -> Option<Arc<gimli::Abbreviations>>,
    ) -> Vec<u32> {
        let mut out: Vec<u32> = units.to_vec();
        // DIEs to follow: (.debug_info offset, hops left).
        let mut pending: Vec<(usize, u8)> = Vec::new();
        for &u in units {
            let Some(unit) = self.units.get(u as usize) else {
                continue;
            };
            scan_unit(dwarf, *unit, tables, &mut |target| {
                pending.push((target, MOST_HOPS))
            });
        }
        let mut seen = std::collections::HashSet::new();
        while let Some((offset, hops)) = pending.pop() {
            if hops == 0 || !seen.insert(offset) {
                continue;
            }
            let Some(u) = self.unit_of(offset) else {
                continue;
            };
            out.push(u);
            let unit = self.units[u as usize];
            follow_die(dwarf, unit, offset, tables, &mut |target| {
                pending.push((target, hops - 1));
            });
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The abbreviation tables of `units`.
    pub(super) fn tables_of(&self, units: &[u32]) -> Vec<u64> {
        let mut out: Vec<u64> = units
            .iter()
            .filter_map(|&u| Some(self.units.get(u as usize)?.abbrev))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// A `.debug_info` as long as the end of the last of `units` (sorted), holding those units
    /// at their own offsets and one empty unit over each gap; `None` when a gap is too small
    /// for a unit header.
    pub(super) fn debug_info_of(
        &self,
        info: &[u8],
        units: &[u32],
        endian: RunTimeEndian,
    ) -> Option<memmap2::Mmap> {
        /// A DWARF 4 header (length, version, abbreviation offset, address size), then a DIE
        /// whose abbreviation code no table has: readers fail the unit at once and pass it by
        /// (a null DIE would have them read on through every zero of the gap).
        const NO_SUCH_CODE: [u8; 7] = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f];
        const EMPTY_UNIT: usize = 4 + 2 + 4 + 1 + NO_SUCH_CODE.len();
        let last = self.units.get(*units.last()? as usize)?;
        // Anonymous pages: zero until written, and an allocation that fails is an answer
        // from the whole context rather than an abort.
        let mut out = memmap2::MmapMut::map_anon(last.end.max(1)).ok()?;
        let mut at = 0;
        for &u in units {
            let unit = self.units.get(u as usize)?;
            let gap = unit.start.checked_sub(at)?;
            if gap > 0 {
                if gap < EMPTY_UNIT {
                    return None;
                }
                let length = u32::try_from(gap - 4).ok().filter(|&l| l < 0xffff_fff0)?;
                let abbrev = u32::try_from(unit.abbrev).ok()?;
                let header = &mut out[at..at + EMPTY_UNIT];
                let (len, ver, abb) = match endian {
                    RunTimeEndian::Little => (
                        length.to_le_bytes(),
                        4u16.to_le_bytes(),
                        abbrev.to_le_bytes(),
                    ),
                    RunTimeEndian::Big => (
                        length.to_be_bytes(),
                        4u16.to_be_bytes(),
                        abbrev.to_be_bytes(),
                    ),
                };
                header[..4].copy_from_slice(&len);
                header[4..6].copy_from_slice(&ver);
                header[6..10].copy_from_slice(&abb);
                header[10] = 8;
                header[11..].copy_from_slice(&NO_SUCH_CODE);
            }
            out[unit.start..unit.end].copy_from_slice(info.get(unit.start..unit.end)?);
            at = unit.end;
        }
        out.make_read_only().ok()
    }
}

/// Reports the code ranges of one unit to `span`.
fn index_unit<'d>(
    dwarf: &gimli::Dwarf<Slice<'d>>,
    raw: &Raw<'_>,
    header: &gimli::UnitHeader<Slice<'d>>,
    aranges: &[(usize, gimli::DebugArangesOffset<usize>)],
    roots: &mut RootTables,
    span: &mut dyn FnMut(u64, u64),
) {
    let Raw {
        info,
        debug_abbrev,
        debug_line,
        endian,
    } = *raw;
    let Some(start) = header.offset().as_debug_info_offset().map(|o| o.0) else {
        return;
    };
    // The root DIE's abbreviation code.
    let Some(root_code) = info
        .get(start + header.header_size()..)
        .and_then(|b| Slice::new(b, endian).read_uleb128().ok())
    else {
        return;
    };
    let table = header.debug_abbrev_offset().0;
    let abbrevs = match roots.entry((table, root_code)) {
        std::collections::hash_map::Entry::Occupied(e) => e.get().clone(),
        std::collections::hash_map::Entry::Vacant(e) => {
            let found = declaration(debug_abbrev, table, root_code, endian).map(Arc::new);
            e.insert(found).clone()
        }
    };
    let Some(abbrevs) = abbrevs else {
        return;
    };
    let Ok(mut entries) = header.entries_raw(&abbrevs, None) else {
        return;
    };
    let Ok(Some(abbrev)) = entries.read_abbreviation() else {
        return;
    };
    let mut root = Root {
        low_pc: None,
        high_pc: None,
        ranges: None,
        addr_base: DebugAddrBase(0),
        rnglists_base: DebugRngListsBase(0),
        stmt_list: None,
    };
    for spec in abbrev.attributes() {
        let Ok(attr) = entries.read_attribute(*spec) else {
            return;
        };
        match attr.name() {
            gimli::DW_AT_low_pc => root.low_pc = Some(attr.value()),
            gimli::DW_AT_high_pc => root.high_pc = Some(attr.value()),
            gimli::DW_AT_ranges => root.ranges = Some(attr.value()),
            gimli::DW_AT_addr_base | gimli::DW_AT_GNU_addr_base => {
                if let AttributeValue::DebugAddrBase(b) = attr.value() {
                    root.addr_base = b;
                }
            }
            gimli::DW_AT_rnglists_base | gimli::DW_AT_GNU_ranges_base => {
                if let AttributeValue::DebugRngListsBase(b) = attr.value() {
                    root.rnglists_base = b;
                }
            }
            gimli::DW_AT_stmt_list => {
                if let AttributeValue::DebugLineRef(o) = attr.value() {
                    root.stmt_list = Some(o);
                }
            }
            _ => {}
        }
    }
    let address = |value: &AttributeValue<Slice<'d>>| match *value {
        AttributeValue::Addr(a) => Some(a),
        AttributeValue::DebugAddrIndex(i) => dwarf
            .debug_addr
            .get_address(header.address_size(), root.addr_base, i)
            .ok(),
        _ => None,
    };
    let low_pc = root.low_pc.as_ref().and_then(address);
    // DW_AT_ranges first, then .debug_aranges, then low/high pc, as addr2line does.
    let mut found = false;
    if let Some(value) = &root.ranges {
        let offset = match *value {
            AttributeValue::RangeListsRef(r) => Some(gimli::RangeListsOffset(r.0)),
            AttributeValue::DebugRngListsIndex(i) => dwarf
                .ranges
                .get_offset(header.encoding(), root.rnglists_base, i)
                .ok(),
            _ => None,
        };
        if let Some(offset) = offset
            && let Ok(mut ranges) = dwarf.ranges.ranges(
                offset,
                header.encoding(),
                low_pc.unwrap_or(0),
                &dwarf.debug_addr,
                root.addr_base,
            )
        {
            while let Ok(Some(r)) = ranges.next() {
                if r.begin < r.end {
                    span(r.begin, r.end);
                    found = true;
                }
            }
        }
        if found {
            return;
        }
        // Declared ranges, even none, stand: no aranges, no low/high pc.
    } else {
        let first = aranges.partition_point(|a| a.0 < start);
        for (_, offset) in aranges[first..].iter().take_while(|a| a.0 == start) {
            let Ok(h) = dwarf.debug_aranges.header(*offset) else {
                continue;
            };
            let mut entries = h.entries();
            loop {
                match entries.next() {
                    Ok(Some(e)) => {
                        if e.length() != 0 {
                            let r = e.range();
                            span(r.begin, r.end);
                            found = true;
                        }
                    }
                    Ok(None) => break,
                    // An address that overflows is passed over, as addr2line does.
                    Err(gimli::Error::AddressOverflow) => continue,
                    Err(_) => break,
                }
            }
        }
        if found {
            return;
        }
    }
    if root.ranges.is_none()
        && let (Some(low), Some(high)) = (low_pc, root.high_pc.as_ref())
    {
        let high = match *high {
            AttributeValue::Udata(size) => low.checked_add(size),
            ref other => address(other),
        };
        if let Some(high) = high
            && low < high
        {
            span(low, high);
            return;
        }
    }
    // No ranges declared: the line program's sequences (none in a unit without code, and
    // none worth reading in a unit whose code the linker dropped: every sequence at 0).
    if let Some(offset) = root.stmt_list
        && !empty_line_program(debug_line, offset.0, endian)
        && let Ok(program) = dwarf
            .debug_line
            .program(offset, header.address_size(), None, None)
        && places_code(program.header())
        && let Ok((_, sequences)) = program.sequences()
    {
        for s in sequences {
            if s.start < s.end {
                span(s.start, s.end);
            }
        }
    }
}

/// How far a chain of origins and declarations is followed (as `addr2line` follows names).
const MOST_HOPS: u8 = 16;

/// Whether an attribute leads a name elsewhere.
fn leads_to_name(name: gimli::DwAt) -> bool {
    name == gimli::DW_AT_abstract_origin || name == gimli::DW_AT_specification
}

/// The header of the unit at `unit` in `dwarf`, and its abbreviation table.
fn unit_parts<'d>(
    dwarf: &gimli::Dwarf<Slice<'d>>,
    unit: UnitBytes,
    tables: &mut dyn FnMut(u64) -> Option<Arc<gimli::Abbreviations>>,
) -> Option<(gimli::UnitHeader<Slice<'d>>, Arc<gimli::Abbreviations>)> {
    let header = dwarf
        .debug_info
        .header_from_offset(gimli::DebugInfoOffset(unit.start))
        .ok()?;
    Some((header, tables(unit.abbrev)?))
}

/// Reports the `.debug_info` offset of every origin or declaration that a DIE of `unit`
/// names in another unit (`DW_FORM_ref_addr`).
fn scan_unit(
    dwarf: &gimli::Dwarf<Slice<'_>>,
    unit: UnitBytes,
    tables: &mut dyn FnMut(u64) -> Option<Arc<gimli::Abbreviations>>,
    target: &mut dyn FnMut(usize),
) {
    let Some((header, abbrevs)) = unit_parts(dwarf, unit, tables) else {
        return;
    };
    let Ok(mut entries) = header.entries_raw(&abbrevs, None) else {
        return;
    };
    while !entries.is_empty() {
        let Ok(abbrev) = entries.read_abbreviation() else {
            return;
        };
        let Some(abbrev) = abbrev else {
            continue;
        };
        let wanted = abbrev
            .attributes()
            .iter()
            .any(|s| s.form() == gimli::DW_FORM_ref_addr && leads_to_name(s.name()));
        if !wanted {
            if entries.skip_attributes(abbrev.attributes()).is_err() {
                return;
            }
            continue;
        }
        for spec in abbrev.attributes() {
            let Ok(attr) = entries.read_attribute(*spec) else {
                return;
            };
            if leads_to_name(attr.name())
                && let AttributeValue::DebugInfoRef(o) = attr.value()
            {
                target(o.0);
            }
        }
    }
}

/// Reports where the DIE at `.debug_info` offset `offset` (in `unit`) leads its name: its
/// origin or declaration, in its own unit or another.
fn follow_die(
    dwarf: &gimli::Dwarf<Slice<'_>>,
    unit: UnitBytes,
    offset: usize,
    tables: &mut dyn FnMut(u64) -> Option<Arc<gimli::Abbreviations>>,
    target: &mut dyn FnMut(usize),
) {
    let Some((header, abbrevs)) = unit_parts(dwarf, unit, tables) else {
        return;
    };
    let Ok(mut entries) =
        header.entries_raw(&abbrevs, Some(gimli::UnitOffset(offset - unit.start)))
    else {
        return;
    };
    let Ok(Some(abbrev)) = entries.read_abbreviation() else {
        return;
    };
    for spec in abbrev.attributes() {
        let Ok(attr) = entries.read_attribute(*spec) else {
            return;
        };
        if !leads_to_name(attr.name()) {
            continue;
        }
        match attr.value() {
            AttributeValue::DebugInfoRef(o) => target(o.0),
            AttributeValue::UnitRef(o) => target(unit.start + o.0),
            _ => {}
        }
    }
}

/// Whether a line program sets any address but 0: the instructions are stepped over, only
/// `DW_LNE_set_address` read. A unit whose functions the linker dropped has its sequences
/// at 0 (the dropped code's tombstone), and no code to answer for.
fn places_code(header: &gimli::LineProgramHeader<Slice<'_>>) -> bool {
    let lengths = header.standard_opcode_lengths().slice();
    let base = header.opcode_base();
    let mut input = header.raw_program_buf();
    let mut step = || -> Option<bool> {
        let op = input.read_u8().ok()?;
        if op >= base {
            return Some(false); // a special opcode
        }
        if op == 0 {
            let len = usize::try_from(input.read_uleb128().ok()?).ok()?;
            let mut body = input.split(len).ok()?;
            if body.read_u8().ok()? == gimli::DW_LNE_set_address.0 {
                let address = body.read_address(header.address_size()).ok()?;
                return Some(address != 0);
            }
            return Some(false);
        }
        if op == gimli::DW_LNS_fixed_advance_pc.0 {
            input.read_u16().ok()?;
            return Some(false);
        }
        for _ in 0..*lengths.get(usize::from(op) - 1)? {
            input.read_uleb128().ok()?;
        }
        Some(false)
    };
    loop {
        match step() {
            Some(true) => return true,
            Some(false) => {}
            // The end, or instructions that do not read: the line program decides.
            None => return !input.is_empty(),
        }
    }
}
