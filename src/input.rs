//! Reading input files (scenarios, failure logs, job schedules, partial summaries) whole into
//! memory, with a bound on their size: a device such as `/dev/zero` given as a file, or an xz
//! bomb given as a failure log, is refused with an error instead of filling the memory until
//! the system kills the process.

use std::io::{self, Read};
use std::path::Path;

/// The most bytes an input file may hold, and a compressed failure log may decompress to:
/// 1 GiB. The inputs this tool knows are far smaller (the whole LANL log is 2.9 MB of text,
/// Frontier's year of 331,640 jobs 4 MB), and each is held whole in memory.
pub const MAX_INPUT_BYTES: u64 = 1 << 30;

/// `n` bytes as people write it: `1 GiB`, `4 MiB`, or `1000 bytes`.
pub fn shown_bytes(n: u64) -> String {
    match n {
        n if n >= 1 << 30 && n % (1 << 30) == 0 => format!("{} GiB", n >> 30),
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{} MiB", n >> 20),
        n => format!("{n} bytes"),
    }
}

fn too_large(limit: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::FileTooLarge,
        format!(
            "it holds more than {}: accepted is a file of at most {} (is it the right file, not a device or a \
             stream without end?)",
            shown_bytes(limit),
            shown_bytes(limit)
        ),
    )
}

/// The path that names standard input where a file is expected (a scenario `-`).
pub const STDIN_PATH: &str = "-";

/// Whether `path` is [`STDIN_PATH`], standard input rather than a file.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == STDIN_PATH
}

/// Reads the file at `path` whole, as [`std::fs::read`] does, but refuses one that holds more
/// than `limit` bytes (an error of kind [`io::ErrorKind::FileTooLarge`] that says so): a
/// regular file by its size, before reading it; anything else (a device, a pipe) once it has
/// given `limit` bytes and one more.
pub fn read_bounded(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let file = std::fs::File::open(path)?;
    let size = file.metadata().ok().filter(|m| m.is_file()).map_or(0, |m| m.len());
    if size > limit {
        return Err(too_large(limit));
    }
    read_to_limit(file, size, limit)
}

/// Whether standard input was read already, to its end.
static STDIN_READ: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Reads standard input to its end, refusing more than `limit` bytes as [`read_bounded`]
/// refuses a device or a pipe. It can be read once: a second call (`run - -`) is an error
/// of kind [`io::ErrorKind::AlreadyExists`] rather than the empty text left.
pub fn read_stdin_bounded(limit: u64) -> io::Result<Vec<u8>> {
    if STDIN_READ.swap(true, std::sync::atomic::Ordering::SeqCst) {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            "it was read already, to its end: accepted is `-` once per command",
        ));
    }
    read_to_limit(io::stdin().lock(), 0, limit)
}

/// Reads `reader` to its end into a buffer of `capacity` bytes to start with, refusing it
/// once it has given `limit` bytes and one more.
fn read_to_limit(reader: impl Read, capacity: u64, limit: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::with_capacity(usize::try_from(capacity).unwrap_or(0));
    reader.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_large(limit));
    }
    Ok(bytes)
}

/// A LEB-128 number of an xz index (at most 9 bytes) at `*at`, which it advances.
fn xz_varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut n: u64 = 0;
    for i in 0..9 {
        let b = *bytes.get(*at)?;
        *at += 1;
        n |= u64::from(b & 0x7F) << (7 * i);
        if b & 0x80 == 0 {
            return Some(n);
        }
    }
    None
}

/// The uncompressed size that the xz stream `bytes` declares: the sum over the records of its
/// index, the table of blocks at its end (found from the stream footer, after any stream
/// padding). `None` when there is no readable footer and index.
pub fn xz_declared_size(bytes: &[u8]) -> Option<u64> {
    let mut end = bytes.len();
    while end >= 4 && bytes[end - 4..end] == [0; 4] {
        end -= 4;
    }
    let footer = bytes.get(end.checked_sub(12)?..end)?;
    if footer[10..12] != *b"YZ" {
        return None;
    }
    let backward = u32::from_le_bytes(footer[4..8].try_into().ok()?);
    let index_len = (backward as usize + 1) * 4;
    let index = bytes.get((end - 12).checked_sub(index_len)?..end - 12)?;
    if index[0] != 0 {
        return None;
    }
    let mut at = 1;
    let records = xz_varint(index, &mut at)?;
    let mut total: u64 = 0;
    for _ in 0..records {
        xz_varint(index, &mut at)?; // the block's unpadded (compressed) size
        total = total.saturating_add(xz_varint(index, &mut at)?);
    }
    Some(total)
}

/// Decompresses the xz stream `bytes`, refusing one whose index declares more than `limit`
/// bytes, or has no readable index, before decompressing anything. The error says what is
/// wrong and what is accepted (without the file's name, which the caller adds).
pub fn xz_decompress_bounded(bytes: &[u8], limit: u64) -> Result<Vec<u8>, String> {
    match xz_declared_size(bytes) {
        None => Err("starts like xz but its index (the table of its blocks, at its end) cannot be read: \
                     accepted is a whole xz file, as `xz` writes it"
            .into()),
        Some(n) if n > limit => Err(format!(
            "decompresses to {n} bytes (its xz index says), more than {}: accepted is a failure log of at most {} \
             uncompressed",
            shown_bytes(limit),
            shown_bytes(limit)
        )),
        Some(n) => {
            let mut out = Vec::with_capacity(usize::try_from(n).unwrap_or(0));
            lzma_rs::xz_decompress(&mut &bytes[..], &mut out)
                .map_err(|e| format!("starts like xz but cannot be decompressed: {e}"))?;
            // The index is checked against the blocks only once they are decoded: a crafted
            // index that understates them is caught here, after decoding (not before).
            if out.len() as u64 > limit {
                return Err(format!("decompresses to more than {}: accepted is at most that", shown_bytes(limit)));
            }
            Ok(out)
        }
    }
}
