//! What an order counts for in the sales figures, once its refunds are taken off.

/// What one order adds to the sales figures.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SalesFigure {
    pub tickets: i64,
    /// Everything it brought in: tickets and concessions.
    pub revenue: i64,
    pub orders: i64,
    /// Concession units sold.
    pub items: i64,
    /// The part of `revenue` concessions brought in.
    pub concessions: i64,
}

impl SalesFigure {
    /// What an order counts for: a live order its remaining seats, one order, and what was
    /// paid less what was refunded; a cancelled one only the fees it kept (and what it kept
    /// of its products: `with_items`).
    pub fn of_order(
        live: bool,
        seats: usize,
        refunded_seats: usize,
        total: i64,
        refunded: i64,
    ) -> Self {
        SalesFigure {
            tickets: if live {
                (seats - refunded_seats.min(seats)) as i64
            } else {
                0
            },
            revenue: total - refunded,
            orders: i64::from(live),
            items: 0,
            concessions: 0,
        }
    }

    /// With the product units it kept and what they brought in (collected products of a
    /// cancelled order stay sold).
    pub fn with_items(self, items: i64, concessions: i64) -> Self {
        SalesFigure {
            items,
            concessions,
            ..self
        }
    }

    /// `self` less `other`.
    pub fn minus(self, other: SalesFigure) -> SalesFigure {
        SalesFigure {
            tickets: self.tickets - other.tickets,
            revenue: self.revenue - other.revenue,
            orders: self.orders - other.orders,
            items: self.items - other.items,
            concessions: self.concessions - other.concessions,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_order_counts_its_remaining_seats_and_what_it_kept() {
        let live = SalesFigure::of_order(true, 3, 1, 10800, 3500);
        assert_eq!(
            live,
            SalesFigure {
                tickets: 2,
                revenue: 7300,
                orders: 1,
                ..SalesFigure::default()
            }
        );
        let cancelled = SalesFigure::of_order(false, 3, 3, 10800, 9300);
        assert_eq!(
            cancelled,
            SalesFigure {
                tickets: 0,
                revenue: 1500,
                orders: 0,
                ..SalesFigure::default()
            }
        );
        assert_eq!(
            cancelled.minus(live),
            SalesFigure {
                tickets: -2,
                revenue: -5800,
                orders: -1,
                ..SalesFigure::default()
            }
        );
    }
}
