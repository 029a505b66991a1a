//! When a gateway stops being counted, and when its record goes.

use std::time::Duration;

/// A gateway not heard of for this many heartbeats is not counted any more.
pub const LIVE_WITHIN_HEARTBEATS: u32 = 3;

/// How long after its last heartbeat the TTL index removes a process's record (the count
/// stops counting it far earlier, after [`LIVE_WITHIN_HEARTBEATS`]).
pub const RECORD_TTL: Duration = Duration::from_secs(300);

/// Which of `members` (gateway process ids) serves the writes of the document `key` (a
/// showtime's 12 bytes): the one whose score for it is highest (rendezvous hashing). Every
/// gateway that sees the same members picks the same one, and when one joins or leaves only
/// the documents it wins or held change hands. None when there is no member.
pub fn owner<'a>(members: impl IntoIterator<Item = &'a str>, key: &[u8]) -> Option<&'a str> {
    members
        .into_iter()
        .max_by_key(|member| (score(member.as_bytes(), key), *member))
}

/// A member's score for a key: FNV-1a of both, then a finaliser (splitmix64) so that ids
/// alike (a process number and random bits) still spread. Written out rather than taken from
/// `std::hash`, whose output may change between Rust releases: gateways built apart must
/// agree.
fn score(member: &[u8], key: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in member.iter().chain([0xff].iter()).chain(key) {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash ^= hash >> 30;
    hash = hash.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    hash ^= hash >> 27;
    hash = hash.wrapping_mul(0x94d0_49bb_1331_11eb);
    hash ^ (hash >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(n: u32) -> [u8; 12] {
        let mut key = [7; 12];
        key[8..].copy_from_slice(&n.to_be_bytes());
        key
    }

    #[test]
    fn every_member_list_in_any_order_names_the_same_owner() {
        let members = ["101-aa", "202-bb", "303-cc"];
        let reversed = ["303-cc", "202-bb", "101-aa"];
        for n in 0..100 {
            assert_eq!(owner(members, &key(n)), owner(reversed, &key(n)));
        }
        assert_eq!(owner([], &key(1)), None);
        assert_eq!(owner(["only"], &key(1)), Some("only"));
    }

    #[test]
    fn documents_spread_over_the_members() {
        let members = [
            "4242-0000000000000001",
            "4242-0000000000000002",
            "4243-0000000000000003",
        ];
        let mut won = [0; 3];
        for n in 0..3_000 {
            let owner = owner(members, &key(n)).unwrap();
            won[members.iter().position(|m| *m == owner).unwrap()] += 1;
        }
        // 1,000 each on average; a fair split stays well within 20%.
        assert!(won.iter().all(|w| (800..1_200).contains(w)), "{won:?}");
    }

    #[test]
    fn a_member_leaving_moves_only_the_documents_it_held() {
        let three = ["a-1", "b-2", "c-3"];
        let two = ["a-1", "c-3"];
        for n in 0..1_000 {
            let before = owner(three, &key(n)).unwrap();
            let after = owner(two, &key(n)).unwrap();
            if before != "b-2" {
                assert_eq!(
                    before, after,
                    "document {n} moved without its owner leaving"
                );
            }
        }
    }
}
