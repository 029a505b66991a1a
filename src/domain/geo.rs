//! Geographic input: points and search radii, validated before any query runs.

use crate::error::ApiError;

/// The largest radius a nearest-cinema search accepts, in metres.
pub const MAX_RADIUS_METERS: f64 = 500_000.0;

/// A point on Earth, in degrees (WGS 84, as GeoJSON uses).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GeoPoint {
    pub latitude: f64,
    pub longitude: f64,
}

impl GeoPoint {
    /// A point, or BAD_USER_INPUT that says which coordinate is out of range.
    pub fn new(latitude: f64, longitude: f64) -> Result<Self, ApiError> {
        if !latitude.is_finite() || !(-90.0..=90.0).contains(&latitude) {
            return Err(ApiError::bad_input(format!(
                "latitude {latitude} is outside -90 to 90 degrees"
            )));
        }
        if !longitude.is_finite() || !(-180.0..=180.0).contains(&longitude) {
            return Err(ApiError::bad_input(format!(
                "longitude {longitude} is outside -180 to 180 degrees"
            )));
        }
        Ok(GeoPoint {
            latitude,
            longitude,
        })
    }

    /// Great-circle distance in metres (haversine, mean Earth radius as MongoDB uses).
    pub fn distance_meters(&self, other: &GeoPoint) -> f64 {
        const EARTH_RADIUS_METERS: f64 = 6_378_100.0;
        let (lat1, lat2) = (self.latitude.to_radians(), other.latitude.to_radians());
        let dlat = lat2 - lat1;
        let dlon = (other.longitude - self.longitude).to_radians();
        let a = (dlat / 2.0).sin().powi(2) + lat1.cos() * lat2.cos() * (dlon / 2.0).sin().powi(2);
        2.0 * EARTH_RADIUS_METERS * a.sqrt().asin()
    }
}

/// A search radius in metres: positive, finite, at most [`MAX_RADIUS_METERS`].
pub fn validate_radius(radius_meters: f64) -> Result<f64, ApiError> {
    if radius_meters.is_finite() && radius_meters > 0.0 && radius_meters <= MAX_RADIUS_METERS {
        Ok(radius_meters)
    } else {
        Err(ApiError::bad_input(format!(
            "radiusMeters {radius_meters} must be greater than 0 and at most {MAX_RADIUS_METERS}"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_out_of_range_coordinates() {
        assert!(GeoPoint::new(90.0, 180.0).is_ok());
        let error = GeoPoint::new(91.0, 0.0).unwrap_err();
        assert!(error.to_string().contains("latitude 91"), "{error}");
        assert!(GeoPoint::new(0.0, -180.5)
            .unwrap_err()
            .to_string()
            .contains("longitude"));
        assert!(GeoPoint::new(f64::NAN, 0.0).is_err());
    }

    #[test]
    fn rejects_bad_radii() {
        for bad in [0.0, -1.0, f64::INFINITY, MAX_RADIUS_METERS + 1.0] {
            assert!(validate_radius(bad).is_err(), "{bad}");
        }
        assert_eq!(validate_radius(5_000.0).unwrap(), 5_000.0);
    }

    #[test]
    fn distance_between_shanghai_and_beijing_is_about_1070_km() {
        let shanghai = GeoPoint::new(31.2304, 121.4737).unwrap();
        let beijing = GeoPoint::new(39.9042, 116.4074).unwrap();
        let km = shanghai.distance_meters(&beijing) / 1000.0;
        assert!((1_060.0..1_075.0).contains(&km), "{km}");
    }
}
