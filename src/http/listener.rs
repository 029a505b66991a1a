//! The gateway's listening socket, with a queue deep enough for a crowd.
//!
//! `TcpListener::bind` left the kernel's accept queue at 128 connections. A crowd that reaches
//! a freshly started gateway at once (600 buyers in issue 34's benchmark) overflowed it: the
//! kernel dropped the extra handshakes (`ListenOverflows` in `/proc/net/netstat`), the clients
//! sent them again after their one-second retransmission timer, and their refusals, answered
//! in microseconds once connected, took 1.04 s (the p99 of refusals at 600 clients).

use std::net::SocketAddr;

use tokio::net::{TcpListener, TcpSocket};

/// Connections the kernel may queue before the gateway accepts them (it caps this at
/// `net.core.somaxconn`, 4096 on current Linux).
pub const ACCEPT_QUEUE: u32 = 4096;

/// Listens on `address` with an accept queue of [`ACCEPT_QUEUE`].
pub fn listen(address: SocketAddr) -> std::io::Result<TcpListener> {
    let socket = match address {
        SocketAddr::V4(_) => TcpSocket::new_v4()?,
        SocketAddr::V6(_) => TcpSocket::new_v6()?,
    };
    // A restarted gateway binds again at once, its old connections in TIME_WAIT or not.
    socket.set_reuseaddr(true)?;
    socket.bind(address)?;
    socket.listen(ACCEPT_QUEUE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn it_listens_where_asked_and_accepts() {
        let listener = listen("127.0.0.1:0".parse().unwrap()).unwrap();
        let address = listener.local_addr().unwrap();
        assert!(address.port() != 0);
        let (connected, accepted) =
            tokio::join!(tokio::net::TcpStream::connect(address), listener.accept());
        assert_eq!(
            connected.unwrap().local_addr().unwrap(),
            accepted.unwrap().1
        );
    }
}
