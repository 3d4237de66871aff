//! Clients that have gone, on the channels whose loops answer requests
//! (heartbeat, shell and control, the connection group that shuts down
//! together): a reply for one is dropped, as libzmq drops what a ROUTER
//! cannot route, and a receive that failed only because one client's
//! connection broke is made again. Upstream's control and heartbeat loops
//! return on either failure, which ended the server, or its heartbeat, when
//! a client closed before its reply came: jupyter_server does, each time it
//! replaces a browser tab's stale connection. The forked `Connection` calls
//! these from `puzzlebook:` hooks.

use super::recv_in_place::polled_in_place;
use zeromq::{SocketRecv, ZmqError, ZmqMessage, ZmqResult};

/// `sent` (the result of a socket's send), with the failures that only mean
/// that the addressee has gone made into success when `answers_requests`.
/// Elsewhere they stay failures: a cell's `input_request` on stdin whose
/// client has gone gives up on its input, as upstream's does, instead of
/// waiting for a reply nobody can send. Any other failure, such as a
/// message the socket cannot send at all, stays one.
pub(crate) fn dropped_if_gone(sent: ZmqResult<()>, answers_requests: bool) -> ZmqResult<()> {
    match sent {
        Err(e) if answers_requests && peer_gone(&e) => Ok(()),
        other => other,
    }
}

/// The next message on `socket`, each poll made in place
/// ([`polled_in_place`]); when `answers_requests`, past failures that only
/// say one client's connection broke. zeromq's REP reports such a failure
/// from its `recv`, and keeps the broken stream in its queue, so that a
/// frame cut off by the peer is reported again at every receive: between
/// tries this waits 2 ms, then twice as long each time up to about a second,
/// so that it never spins and a shutdown can cancel it.
pub(crate) async fn receive<S: SocketRecv>(
    socket: &mut S,
    answers_requests: bool,
) -> ZmqResult<ZmqMessage> {
    let mut broken = 0;
    loop {
        match polled_in_place(socket.recv()).await {
            Err(e) if answers_requests && peer_gone(&e) => {
                broken = (broken + 1).min(10);
                tokio::time::sleep(std::time::Duration::from_millis(1 << broken)).await;
            }
            other => return other,
        }
    }
}

/// Whether `e` says that the peer at the other end is not there any more.
fn peer_gone(e: &ZmqError) -> bool {
    match e {
        // ROUTER: no peer under the identity the reply is addressed to.
        ZmqError::Other("Destination client not found by identity") => true,
        // REP: the peer that sent the request has disconnected.
        ZmqError::ReturnToSender {
            reason: "Client disconnected",
            ..
        } => true,
        // The peer's connection broke under a read or a write: an I/O error
        // of these kinds, wrapped in the codec's error (a type zeromq keeps
        // private) or not.
        _ => {
            let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
            while let Some(s) = source {
                if let Some(io) = s.downcast_ref::<std::io::Error>() {
                    return connection_broke(io.kind());
                }
                source = s.source();
            }
            false
        }
    }
}

fn connection_broke(kind: std::io::ErrorKind) -> bool {
    use std::io::ErrorKind::*;
    matches!(
        kind,
        BrokenPipe | ConnectionReset | ConnectionAborted | NotConnected | UnexpectedEof | WriteZero
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::Future;
    use std::pin::Pin;
    use zeromq::{Socket, SocketSend};

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
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
    /// dropped on a channel that answers requests; the socket then serves
    /// the next client.
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
            assert!(peer_gone(&e), "not taken for a gone client: {e}");
            assert!(dropped_if_gone(Err(e), true).is_ok());
            let unknown = router.send(addressed(b"never-connected", "reply")).await;
            assert!(matches!(&unknown, Err(e) if peer_gone(e)), "{unknown:?}");
            // On stdin, the cell's input request learns that nobody will answer.
            let unknown = router.send(addressed(b"never-connected", "reply")).await;
            assert!(dropped_if_gone(unknown, false).is_err());
            let unknown = router.send(addressed(b"never-connected", "reply")).await;
            assert!(dropped_if_gone(unknown, true).is_ok());

            let mut next = zeromq::DealerSocket::new();
            next.connect(&endpoint.to_string()).await.unwrap();
            next.send(ZmqMessage::from("again")).await.unwrap();
            let request = receive(&mut router, true).await.unwrap();
            let identity = request.get(0).unwrap().to_vec();
            dropped_if_gone(router.send(addressed(&identity, "answer")).await, true).unwrap();
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
            assert!(dropped_if_gone(sent, true).is_err());
            let mut rep = zeromq::RepSocket::new();
            rep.bind("tcp://127.0.0.1:0").await.unwrap();
            // A reply with no request in progress.
            let sent = rep.send(ZmqMessage::from("pong")).await;
            assert!(dropped_if_gone(sent, true).is_err());
            let refused = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
            assert!(!peer_gone(&ZmqError::Network(refused)));
        });
    }

    /// A socket whose receives give, in turn, what its script holds, and
    /// then fail as a reset connection; it counts them.
    struct Scripted(Vec<ZmqResult<ZmqMessage>>, usize);

    impl SocketRecv for Scripted {
        fn recv<'a, 'b>(
            &'a mut self,
        ) -> Pin<Box<dyn Future<Output = ZmqResult<ZmqMessage>> + Send + 'b>>
        where
            'a: 'b,
            Self: 'b,
        {
            self.1 += 1;
            let next = if self.0.is_empty() {
                Err(reset())
            } else {
                self.0.remove(0)
            };
            Box::pin(async move { next })
        }
    }

    fn reset() -> ZmqError {
        ZmqError::Network(std::io::Error::from(std::io::ErrorKind::ConnectionReset))
    }

    /// A receive that failed because one client's connection was reset is
    /// made again on the heartbeat, shell and control channels; any other
    /// failure, or one on another channel, is returned.
    #[test]
    fn a_receive_past_a_broken_connection_gets_the_next_message() {
        runtime().block_on(async {
            let mut socket = Scripted(vec![Err(reset()), Err(reset()), Ok("ping".into())], 0);
            let got = receive(&mut socket, true).await.unwrap();
            assert_eq!(got.get(0).unwrap().as_ref(), b"ping");
            let mut socket = Scripted(vec![Err(reset()), Ok("ping".into())], 0);
            assert!(receive(&mut socket, false).await.is_err());
            let mut socket = Scripted(vec![Err(ZmqError::NoMessage), Ok("ping".into())], 0);
            assert!(matches!(
                receive(&mut socket, true).await,
                Err(ZmqError::NoMessage)
            ));
        });
    }

    /// A broken stream reported at every receive (zeromq's REP keeps it)
    /// neither spins the thread nor blocks a shutdown: in a second, waits of
    /// 2, 4, …, 512 ms leave room for ten tries, and the wait is cancelled.
    #[test]
    fn a_failure_reported_at_every_receive_is_tried_again_slowly_and_cancellably() {
        runtime().block_on(async {
            let mut socket = Scripted(vec![], 0);
            let second = std::time::Duration::from_secs(1);
            let waited = tokio::time::timeout(second, receive(&mut socket, true)).await;
            assert!(waited.is_err(), "receive gave up or answered: {waited:?}");
            assert!(
                (3..=12).contains(&socket.1),
                "{} tries in a second",
                socket.1
            );
        });
    }
}
