//! The gateways a showtime's writes are sent to. Each showtime has one owner among the live
//! gateways that take forwarded writes (`rules::owner`), and a gateway sends a write of
//! another's showtime to it (`http::forward`): its writes then queue in one process's
//! one-writer turns and group commits, instead of two processes' writes of one document
//! conflicting in the database. The heartbeat keeps the list (`Membership`).
//!
//! Only ever a matter of speed: every write carries in its filter the state it assumes, so a
//! write served where it came (no owner known yet, an owner that just died) is as correct.

use std::collections::HashMap;
use std::sync::{Mutex, RwLock};
use std::time::{Duration, Instant};

use super::rules;
use crate::domain::ids::ShowtimeId;

/// A live gateway that takes other gateways' writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Peer {
    /// Its process id in the `gateways` collection.
    pub id: String,
    /// Where the others reach it (`http://10.0.0.7:8080`).
    pub url: String,
}

/// This process's view of the gateways it shares showtimes with.
#[derive(Debug)]
pub struct Peers {
    id: String,
    /// Where the others reach this process; None: it takes no other gateway's writes.
    url: Option<String>,
    /// The live gateways that take forwarded writes, this one among them when it does.
    live: RwLock<Vec<Peer>>,
    /// Gateways a forward just failed to reach, and until when they are passed over.
    avoided: Mutex<HashMap<String, Instant>>,
    /// Sends the forwarded requests (its own connection pool, kept alive between them).
    client: reqwest::Client,
}

impl Peers {
    /// Process `id`, reachable by the others at `url` (None: it serves the writes it gets,
    /// takes none of theirs, and sends theirs to them).
    pub fn new(id: impl Into<String>, url: Option<String>) -> Peers {
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_millis(500))
            .redirect(reqwest::redirect::Policy::none())
            .pool_idle_timeout(Duration::from_secs(60))
            .build()
            .expect("a plain HTTP client builds");
        Peers {
            id: id.into(),
            url,
            live: RwLock::default(),
            avoided: Mutex::default(),
            client,
        }
    }

    /// A process that knows no other gateway (tests, one gateway): it serves every write.
    pub fn alone() -> Peers {
        Peers::new(format!("{}-alone", std::process::id()), None)
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    /// Where the others reach this process, if they do.
    pub fn url(&self) -> Option<&str> {
        self.url.as_deref()
    }

    pub fn client(&self) -> &reqwest::Client {
        &self.client
    }

    /// Takes the live gateways the heartbeat found (the others; this one is added when it
    /// takes forwarded writes).
    pub fn set_live(&self, others: Vec<Peer>) {
        let mut live: Vec<Peer> = others
            .into_iter()
            .filter(|peer| peer.id != self.id)
            .collect();
        if let Some(url) = &self.url {
            live.push(Peer {
                id: self.id.clone(),
                url: url.clone(),
            });
        }
        *self.live.write().expect("peers lock") = live;
    }

    /// How many live gateways take other gateways' work, this one among them (1 at least).
    pub fn taking_work(&self) -> usize {
        self.live.read().expect("peers lock").len().max(1)
    }

    /// Whether any other gateway takes writes (else none is sent anywhere).
    pub fn knows_others(&self) -> bool {
        let live = self.live.read().expect("peers lock");
        live.iter().any(|peer| peer.id != self.id)
    }

    /// The gateway that owns `showtime`'s writes, when it is another one (None: this process
    /// owns it, or no owner is known).
    pub fn owner_elsewhere(&self, showtime: ShowtimeId) -> Option<Peer> {
        self.owner_of_elsewhere(&showtime.bytes())
    }

    /// The gateway that appends channel `channel`'s events, when it is another one
    /// (`channel_events::handoff`).
    pub fn appender_elsewhere(&self, channel: &str) -> Option<Peer> {
        self.owner_of_elsewhere(format!("channel {channel}").as_bytes())
    }

    /// The live gateway `id`, if it takes other gateways' work.
    pub fn peer(&self, id: &str) -> Option<Peer> {
        let live = self.live.read().expect("peers lock");
        live.iter().find(|peer| peer.id == id).cloned()
    }

    /// The owner of `key` among the live gateways not passed over, when it is another one.
    fn owner_of_elsewhere(&self, key: &[u8]) -> Option<Peer> {
        let live = self.live.read().expect("peers lock");
        let now = Instant::now();
        let owner = {
            let mut avoided = self.avoided.lock().expect("avoided lock");
            avoided.retain(|_, until| *until > now);
            let members = (live.iter())
                .filter(|peer| !avoided.contains_key(&peer.id))
                .map(|peer| peer.id.as_str());
            rules::owner(members, key)?.to_owned()
        };
        (owner != self.id)
            .then(|| live.iter().find(|peer| peer.id == owner).cloned())
            .flatten()
    }

    /// Passes over `peer` for `time`: a forward to it failed, its writes are served where
    /// they come until then (or until it leaves the list).
    pub fn avoid(&self, peer: &Peer, time: Duration) {
        (self.avoided.lock().expect("avoided lock")).insert(peer.id.clone(), Instant::now() + time);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn peer(id: &str) -> Peer {
        Peer {
            id: id.into(),
            url: format!("http://{id}"),
        }
    }

    fn showtime(n: u8) -> ShowtimeId {
        ShowtimeId([n; 12])
    }

    #[test]
    fn a_gateway_that_takes_no_writes_sends_them_all_to_one_that_does() {
        let peers = Peers::alone();
        peers.set_live(vec![]);
        assert!((0..20).all(|n| peers.owner_elsewhere(showtime(n)).is_none()));
        peers.set_live(vec![peer("other")]);
        assert!((0..20).all(|n| peers.owner_elsewhere(showtime(n)) == Some(peer("other"))));
        let lonely = Peers::new("me", Some("http://me".into()));
        lonely.set_live(vec![]);
        assert!((0..20).all(|n| lonely.owner_elsewhere(showtime(n)).is_none()));
    }

    #[test]
    fn two_gateways_split_the_showtimes_and_agree_on_them() {
        let a = Peers::new("a", Some("http://a".into()));
        let b = Peers::new("b", Some("http://b".into()));
        a.set_live(vec![peer("b")]);
        b.set_live(vec![peer("a")]);
        let (mut to_b, mut to_a) = (0, 0);
        for n in 0..100 {
            match (
                a.owner_elsewhere(showtime(n)),
                b.owner_elsewhere(showtime(n)),
            ) {
                (Some(owner), None) => {
                    assert_eq!(owner, peer("b"));
                    to_b += 1;
                }
                (None, Some(owner)) => {
                    assert_eq!(owner, peer("a"));
                    to_a += 1;
                }
                other => panic!("showtime {n}: {other:?}"),
            }
        }
        assert!(to_a > 20 && to_b > 20, "{to_a} / {to_b}");
    }

    #[test]
    fn an_avoided_gateway_s_showtimes_are_served_where_they_come() {
        let a = Peers::new("a", Some("http://a".into()));
        a.set_live(vec![peer("b")]);
        let theirs: Vec<u8> = (0..50)
            .filter(|n| a.owner_elsewhere(showtime(*n)).is_some())
            .collect();
        assert!(!theirs.is_empty());
        a.avoid(&peer("b"), Duration::from_secs(60));
        assert!(theirs
            .iter()
            .all(|n| a.owner_elsewhere(showtime(*n)).is_none()));
        a.avoid(&peer("b"), Duration::ZERO);
        assert!(theirs
            .iter()
            .all(|n| a.owner_elsewhere(showtime(*n)).is_some()));
    }
}
