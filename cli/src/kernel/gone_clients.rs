//! A message for a client that has gone is dropped, as libzmq drops what a
//! ROUTER cannot route, instead of failing the send: upstream's control and
//! heartbeat loops return on a failed send, which ended the whole server
//! when a client closed before its reply came, as jupyter_server does each
//! time it replaces a browser tab's stale connection (the forked
//! `Connection::send` calls this from a `puzzlebook:` hook).

use zeromq::{ZmqError, ZmqResult};

/// `sent` (the result of a socket's send), with the failures that only mean
/// that the addressee has gone made into success: the peer is unknown (it
/// has disconnected), or its connection failed under the write. Any other
/// failure, such as a message the socket cannot send at all, stays one.
pub(crate) fn dropped_if_gone(sent: ZmqResult<()>) -> ZmqResult<()> {
    match sent {
        Err(e) if addressee_gone(&e) => Ok(()),
        other => other,
    }
}

/// Whether `e` says that the peer a message was for is not there any more.
fn addressee_gone(e: &ZmqError) -> bool {
    match e {
        // ROUTER: no peer under the identity the reply is addressed to.
        ZmqError::Other("Destination client not found by identity") => true,
        // REP: the peer that sent the request has disconnected.
        ZmqError::ReturnToSender {
            reason: "Client disconnected",
            ..
        } => true,
        // The peer's connection broke under the write (a broken pipe or a
        // reset): an I/O error, wrapped in the codec's error (whose type
        // zeromq keeps private) or not.
        ZmqError::Network(_) => true,
        ZmqError::Codec(_) => {
            let mut source = std::error::Error::source(e);
            while let Some(s) = source {
                if s.is::<std::io::Error>() {
                    return true;
                }
                source = s.source();
            }
            false
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zeromq::{Socket, SocketRecv, SocketSend, ZmqMessage};

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    fn addressed(identity: &[u8], body: &str) -> ZmqMessage {
        let mut m = ZmqMessage::from(body.to_string());
        m.push_front(identity.to_vec().into());
        m
    }

    /// A reply to a client that has disconnected fails the send, and is
    /// dropped; the socket then serves the next client.
    #[test]
    fn a_reply_to_a_client_that_has_gone_is_dropped_and_the_next_client_is_served() {
        runtime().block_on(async {
            let mut router = zeromq::RouterSocket::new();
            let endpoint = router.bind("tcp://127.0.0.1:0").await.unwrap();
            let mut first = zeromq::DealerSocket::new();
            first.connect(&endpoint.to_string()).await.unwrap();
            first.send(ZmqMessage::from("hello")).await.unwrap();
            let request = router.recv().await.unwrap();
            let identity = request.get(0).unwrap().to_vec();
            drop(first);
            // The router learns of the disconnect when it next reads, as the
            // server's loops do between requests; until then a write to the
            // closed connection may still be taken. Each failure seen on the
            // way is one that `dropped_if_gone` drops.
            let mut failed = None;
            for _ in 0..200 {
                match router.send(addressed(&identity, "reply")).await {
                    Ok(()) => tokio::time::sleep(std::time::Duration::from_millis(10)).await,
                    Err(e) => {
                        failed = Some(e);
                        break;
                    }
                }
            }
            let e = failed.expect("a send to a client that has gone fails within 2 s");
            let shown = e.to_string();
            assert!(addressee_gone(&e), "not taken for a gone client: {shown}");
            assert!(dropped_if_gone(Err(e)).is_ok());
            let unknown = router.send(addressed(b"never-connected", "reply")).await;
            assert!(
                matches!(&unknown, Err(e) if addressee_gone(e)),
                "{unknown:?}"
            );
            assert!(dropped_if_gone(unknown).is_ok());

            let mut next = zeromq::DealerSocket::new();
            next.connect(&endpoint.to_string()).await.unwrap();
            next.send(ZmqMessage::from("again")).await.unwrap();
            let request = router.recv().await.unwrap();
            let identity = request.get(0).unwrap().to_vec();
            dropped_if_gone(router.send(addressed(&identity, "answer")).await).unwrap();
            let reply = next.recv().await.unwrap();
            assert_eq!(reply.get(0).unwrap().as_ref(), b"answer");
        });
    }

    /// A failure that is not about the addressee stays a failure.
    #[test]
    fn a_message_the_socket_cannot_send_stays_an_error() {
        runtime().block_on(async {
            let mut router = zeromq::RouterSocket::new();
            router.bind("tcp://127.0.0.1:0").await.unwrap();
            // No identity frame: nothing to route by.
            let sent = router.send(ZmqMessage::from("alone")).await;
            assert!(dropped_if_gone(sent).is_err());
            let mut rep = zeromq::RepSocket::new();
            rep.bind("tcp://127.0.0.1:0").await.unwrap();
            // A reply with no request in progress.
            let sent = rep.send(ZmqMessage::from("pong")).await;
            assert!(dropped_if_gone(sent).is_err());
        });
    }
}
