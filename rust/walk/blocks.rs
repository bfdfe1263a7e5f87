//! Hard blocks no ignore rule lifts: secrets by name, private keys and binaries by content.

use std::fs::File;
use std::io::{self, Read};

use super::report::SkipReason;

/// How much of each file is read to detect binaries and private keys.
pub(super) const SNIFF_LEN: usize = 8 * 1024;

/// `.env` files that document variables rather than hold them.
pub(super) const ENV_TEMPLATES: [&str; 3] = [".env.example", ".env.sample", ".env.template"];
const SECRET_EXTENSIONS: [&str; 4] = [".pem", ".key", ".p12", ".pfx"];
const SSH_PRIVATE_KEYS: [&str; 4] = ["id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"];

pub(super) fn is_secret_name(name: &str) -> bool {
    if name.eq_ignore_ascii_case(".env") {
        return true;
    }
    if name.len() > 5 && name.as_bytes()[..5].eq_ignore_ascii_case(b".env.") {
        return !ENV_TEMPLATES
            .iter()
            .any(|template| name.eq_ignore_ascii_case(template));
    }
    SECRET_EXTENSIONS
        .iter()
        .any(|extension| ends_with_ignore_case(name, extension))
        || SSH_PRIVATE_KEYS.contains(&name)
}

pub(super) fn ends_with_ignore_case(name: &str, suffix: &str) -> bool {
    name.len() >= suffix.len()
        && name.as_bytes()[name.len() - suffix.len()..].eq_ignore_ascii_case(suffix.as_bytes())
}

/// The content rules on a file's first bytes: binary (a NUL in the first 8 KiB) or a private key.
pub fn sniff(content: &[u8]) -> Option<SkipReason> {
    let head = &content[..content.len().min(SNIFF_LEN)];
    if memchr::memchr(0, head).is_some() {
        Some(SkipReason::Binary)
    } else if starts_with_private_key(head) {
        Some(SkipReason::Secret)
    } else {
        None
    }
}

/// Whether the first non-blank line is a PEM private key header such as
/// `-----BEGIN RSA PRIVATE KEY-----`.
fn starts_with_private_key(head: &[u8]) -> bool {
    let head = head.strip_prefix("\u{feff}".as_bytes()).unwrap_or(head);
    let Some(line) = head.trim_ascii_start().strip_prefix(b"-----BEGIN ") else {
        return false;
    };
    let end = memchr::memchr(b'\n', line).unwrap_or(line.len());
    line[..end]
        .trim_ascii_end()
        .strip_suffix(b"-----")
        .is_some_and(|label| memchr::memmem::find(label, b"PRIVATE KEY").is_some())
}

/// Fill `buffer` from the start of the file, or as much as the file has.
pub(super) fn read_head<'b>(file: &mut File, buffer: &'b mut [u8]) -> io::Result<&'b [u8]> {
    let mut filled = 0;
    while filled < buffer.len() {
        match file.read(&mut buffer[filled..]) {
            Ok(0) => break,
            Ok(read) => filled += read,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok(&buffer[..filled])
}
