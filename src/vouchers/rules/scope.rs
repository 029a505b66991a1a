//! Where a voucher may be redeemed: never past the cinemas of the operator that made it.

use crate::domain::ids::{CinemaId, MovieId, ShowtimeId};
use crate::domain::pricing::TicketType;
use crate::error::ApiError;
use crate::operators::rules::OperatorScope;

/// Where a voucher may be redeemed: at the cinemas of the operator that made it (every
/// cinema for the platform's; a chain's cinemas as they were when it was made), narrowed to
/// one of them, one movie or one showtime when made so. A chain's voucher for a movie is
/// for that movie at the chain's cinemas only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoucherScope {
    cinemas: OperatorScope,
    only: Option<Narrowed>,
}

/// What a voucher's scope is narrowed to, within its operator's cinemas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Narrowed {
    Cinema(CinemaId),
    Movie(MovieId),
    Showtime(ShowtimeId),
}

/// What a hold is for, as a voucher's rules see it: where, and the seats' ticket types (for a
/// rule on which types a voucher combines with: `Voucher::refusal`).
#[derive(Debug, Clone, Copy)]
pub struct SaleAt<'a> {
    pub cinema: CinemaId,
    pub movie: MovieId,
    pub showtime: ShowtimeId,
    pub ticket_types: &'a [TicketType],
}

impl VoucherScope {
    /// The scope of a voucher made by an operator whose scope is `cinemas`, narrowed to
    /// `only`. FORBIDDEN for a cinema the operator does not write. (A showtime's cinema is
    /// checked by whoever reads the showtime; `covers` holds the line either way.)
    pub fn new(cinemas: OperatorScope, only: Option<Narrowed>) -> Result<Self, ApiError> {
        if let (OperatorScope::Cinemas(own), Some(Narrowed::Cinema(cinema))) = (&cinemas, only) {
            if !own.contains(&cinema) {
                return Err(ApiError::forbidden(format!(
                    "cinema {cinema} is not one of the calling operator's"
                )));
            }
        }
        Ok(VoucherScope { cinemas, only })
    }

    /// The operator's cinemas it was made within.
    pub fn cinemas(&self) -> &OperatorScope {
        &self.cinemas
    }

    /// What it is narrowed to.
    pub fn only(&self) -> Option<Narrowed> {
        self.only
    }

    /// Whether a hold for `sale` may use the voucher.
    pub fn covers(&self, sale: &SaleAt<'_>) -> bool {
        let at_its_cinemas = match &self.cinemas {
            OperatorScope::All => true,
            OperatorScope::Cinemas(cinemas) => cinemas.contains(&sale.cinema),
        };
        at_its_cinemas
            && match self.only {
                None => true,
                Some(Narrowed::Cinema(cinema)) => cinema == sale.cinema,
                Some(Narrowed::Movie(movie)) => movie == sale.movie,
                Some(Narrowed::Showtime(showtime)) => showtime == sale.showtime,
            }
    }
}

#[cfg(test)]
mod tests {

    use super::*;

    #[test]
    fn a_scope_covers_its_own_sales_and_never_past_its_operators_cinemas() {
        let id = |n: u8| [n; 12];
        let sale = SaleAt {
            cinema: CinemaId(id(1)),
            movie: MovieId(id(2)),
            showtime: ShowtimeId(id(3)),
            ticket_types: &[],
        };
        let platform = |only| VoucherScope::new(OperatorScope::All, only).unwrap();
        let chain = |cinemas: &[u8], only| {
            let cinemas = cinemas.iter().map(|n| CinemaId(id(*n))).collect();
            VoucherScope::new(OperatorScope::Cinemas(cinemas), only)
        };
        assert!(platform(None).covers(&sale));
        assert!(chain(&[9, 1], None).unwrap().covers(&sale));
        assert!(!chain(&[9], None).unwrap().covers(&sale));
        let cinema = |n| Some(Narrowed::Cinema(CinemaId(id(n))));
        let movie = |n| Some(Narrowed::Movie(MovieId(id(n))));
        let showtime = |n| Some(Narrowed::Showtime(ShowtimeId(id(n))));
        assert!(platform(cinema(1)).covers(&sale));
        assert!(!platform(cinema(4)).covers(&sale));
        assert!(platform(movie(2)).covers(&sale));
        assert!(!platform(movie(4)).covers(&sale));
        assert!(platform(showtime(3)).covers(&sale));
        assert!(!platform(showtime(4)).covers(&sale));
        // A chain's voucher for a movie is for that movie at the chain's cinemas only.
        assert!(chain(&[1], movie(2)).unwrap().covers(&sale));
        assert!(!chain(&[9], movie(2)).unwrap().covers(&sale));
        assert!(!chain(&[9], showtime(3)).unwrap().covers(&sale));
        // Nor may a chain name another's cinema.
        let refused = chain(&[9], cinema(1)).unwrap_err();
        assert_eq!(refused.code().as_str(), "FORBIDDEN");
        assert!(chain(&[9, 1], cinema(1)).unwrap().covers(&sale));
    }
}
