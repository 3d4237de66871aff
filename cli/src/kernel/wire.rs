//! Reading a Jupyter message off a socket, where the bytes come from anyone
//! who can reach the port: the signature is checked before anything is
//! parsed, and no input can panic the kernel. The forked server
//! (`jupyter/jupyter_message.rs`) calls these from two marked hooks.
//!
//! The wire format (Jupyter's messaging spec): ZeroMQ identities, the
//! delimiter `<IDS|MSG>`, the HMAC-SHA256 signature in hex, then header,
//! parent header, metadata and content as JSON objects, then any binary
//! buffers. The signature covers the four JSON parts.

use bytes::Bytes;
use hmac::Mac;
use serde_json::Value;
use thiserror::Error;

/// The signature's MAC, as the connection file's key makes it.
pub type HmacSha256 = hmac::Hmac<sha2::Sha256>;

/// The part that ends the identities.
pub const DELIMITER: &[u8] = b"<IDS|MSG>";

/// A message that is not a signed Jupyter message. The kernel drops it and
/// goes on serving.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum WireError {
    /// No `<IDS|MSG>` part.
    #[error("no <IDS|MSG> delimiter")]
    NoDelimiter,
    /// Fewer than the signature and four JSON parts after the delimiter.
    #[error("{0} parts after the delimiter; a message has a signature and four JSON parts")]
    TooShort(usize),
    /// The signature is not hex, or does not match.
    #[error("bad signature")]
    Signature,
    /// A JSON part does not parse, or is not an object.
    #[error("the {0} is not a JSON object")]
    NotAnObject(&'static str),
}

/// Splits a message's frames into its identities and the parts after the
/// signature, checking the signature first when there is a key (`mac`).
pub fn split(
    mut frames: Vec<Bytes>,
    mac: Option<&HmacSha256>,
) -> Result<(Vec<Bytes>, Vec<Bytes>), WireError> {
    let at = frames
        .iter()
        .position(|f| &f[..] == DELIMITER)
        .ok_or(WireError::NoDelimiter)?;
    let after = frames.len() - at - 1;
    if after < 5 {
        return Err(WireError::TooShort(after));
    }
    let parts = frames.split_off(at + 2);
    let signature = frames.pop().expect("at + 2 > at + 1 frames were there");
    frames.pop(); // the delimiter
    if let Some(mac) = mac {
        let mut mac = mac.clone();
        for part in &parts[..4] {
            mac.update(part);
        }
        let expected = hex::decode(&signature[..]).map_err(|_| WireError::Signature)?;
        mac.verify_slice(&expected)
            .map_err(|_| WireError::Signature)?;
    }
    Ok((frames, parts))
}

/// The four JSON parts of a message as objects: header, parent header,
/// metadata and content. Anything else is refused here, so the server's
/// later `header["msg_type"] = …` cannot panic on an array or a number.
pub fn objects(parts: &[Bytes]) -> Result<[Value; 4], WireError> {
    const NAMES: [&str; 4] = ["header", "parent header", "metadata", "content"];
    if parts.len() < 4 {
        return Err(WireError::TooShort(parts.len() + 1));
    }
    let parse = |i: usize| -> Result<Value, WireError> {
        match serde_json::from_slice::<Value>(&parts[i]) {
            Ok(v @ Value::Object(_)) => Ok(v),
            _ => Err(WireError::NotAnObject(NAMES[i])),
        }
    };
    Ok([parse(0)?, parse(1)?, parse(2)?, parse(3)?])
}

/// Whether `e`, an error reading a message, says the message was not a
/// signed Jupyter message ([`WireError`]) rather than that the socket failed.
/// The server drops such a message and reads the next one: upstream returned
/// the error, which ended the socket's loop and so the whole kernel.
pub fn is_wire_error(e: &anyhow::Error) -> bool {
    e.downcast_ref::<WireError>().is_some()
}

/// Says on the kernel's log that a message was dropped, and why.
pub fn dropped(e: &anyhow::Error) {
    eprintln!("puzzlebook: dropped a message that is not a signed Jupyter message: {e:#}");
}

#[cfg(test)]
mod tests {
    use super::*;
    use hmac::digest::KeyInit;

    fn mac() -> HmacSha256 {
        HmacSha256::new_from_slice(b"secret").unwrap()
    }

    fn signed(mac: &HmacSha256, parts: &[&[u8]]) -> Vec<Bytes> {
        let mut m = mac.clone();
        for p in &parts[..4] {
            m.update(p);
        }
        let sig = hex::encode(m.finalize().into_bytes());
        let mut frames: Vec<Bytes> = vec![Bytes::from_static(b"id"), Bytes::from_static(DELIMITER)];
        frames.push(Bytes::from(sig.into_bytes()));
        frames.extend(parts.iter().map(|p| Bytes::copy_from_slice(p)));
        frames
    }

    const GOOD: [&[u8]; 4] = [
        br#"{"msg_type":"kernel_info_request"}"#,
        b"{}",
        b"{}",
        b"{}",
    ];

    #[test]
    fn a_signed_message_splits_and_parses() {
        let (ids, parts) = split(signed(&mac(), &GOOD), Some(&mac())).unwrap();
        assert_eq!(ids, [Bytes::from_static(b"id")]);
        assert_eq!(parts.len(), 4);
        let [header, ..] = objects(&parts).unwrap();
        assert_eq!(header["msg_type"], "kernel_info_request");
        // Binary buffers after the content are not signed, as the spec says.
        let mut with_buffer = signed(&mac(), &GOOD);
        with_buffer.push(Bytes::from_static(b"\x00\x01"));
        assert_eq!(split(with_buffer, Some(&mac())).unwrap().1.len(), 5);
    }

    #[test]
    fn the_signature_is_checked_before_anything_is_parsed() {
        let mut frames = signed(&mac(), &GOOD);
        frames[3] = Bytes::from_static(br#"{"msg_type":"shutdown_request"}"#);
        assert_eq!(split(frames, Some(&mac())), Err(WireError::Signature));
        // Not JSON at all, with a wrong signature: refused for the signature.
        let mut frames = signed(&mac(), &GOOD);
        frames[2] = Bytes::from_static(b"zz");
        frames[4] = Bytes::from_static(b"\xff not json");
        assert_eq!(split(frames, Some(&mac())), Err(WireError::Signature));
        // Without a key there is nothing to check.
        let mut frames = signed(&mac(), &GOOD);
        frames[2] = Bytes::from_static(b"anything");
        assert!(split(frames, None).is_ok());
    }

    #[test]
    fn a_message_that_ends_at_the_delimiter_is_refused() {
        // The input that panicked the upstream parser (`drain(delimiter + 2..)`).
        let frames = vec![Bytes::from_static(b"id"), Bytes::from_static(DELIMITER)];
        assert_eq!(split(frames, Some(&mac())), Err(WireError::TooShort(0)));
        let frames = vec![Bytes::from_static(DELIMITER), Bytes::from_static(b"sig")];
        assert_eq!(split(frames, None), Err(WireError::TooShort(1)));
        assert_eq!(split(vec![], None), Err(WireError::NoDelimiter));
    }

    #[test]
    fn json_that_is_not_an_object_is_refused() {
        for (i, bad) in [&b"[]"[..], b"3", b"\"x\"", b"null", b"{"]
            .iter()
            .enumerate()
        {
            let mut parts: Vec<&[u8]> = GOOD.to_vec();
            parts[i % 4] = bad;
            let (_, parts) = split(signed(&mac(), &parts), Some(&mac())).unwrap();
            assert!(
                matches!(objects(&parts), Err(WireError::NotAnObject(_))),
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
    }
}
