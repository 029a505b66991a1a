//! Places: real Chinese cities with their centres and districts, and the cinema brands,
//! shopping centres and streets that cinema names and addresses are made of.

/// A city cinemas are put in.
#[derive(Debug)]
pub struct City {
    /// The province-level region it is in: "广东省", or the municipality itself ("北京市").
    pub province: &'static str,
    pub name: &'static str,
    pub latitude: f64,
    pub longitude: f64,
    /// Real districts (区) of the city.
    pub districts: &'static [&'static str],
    /// Its relative share of the country's cinemas.
    pub weight: u32,
    /// One of the six cities every demo catalogue covers well.
    pub major: bool,
}

const fn city(
    province: &'static str,
    name: &'static str,
    (latitude, longitude): (f64, f64),
    weight: u32,
    major: bool,
    districts: &'static [&'static str],
) -> City {
    City {
        province,
        name,
        latitude,
        longitude,
        districts,
        weight,
        major,
    }
}

/// The cities, biggest markets first.
#[rustfmt::skip]
pub const CITIES: &[City] = &[
    city("北京市", "北京", (39.9042, 116.4074), 12, true, &["朝阳区", "海淀区", "东城区", "西城区", "丰台区", "通州区", "昌平区", "大兴区", "石景山区", "顺义区"]),
    city("上海市", "上海", (31.2304, 121.4737), 12, true, &["浦东新区", "黄浦区", "徐汇区", "静安区", "长宁区", "普陀区", "虹口区", "杨浦区", "闵行区", "宝山区", "嘉定区", "松江区"]),
    city("广东省", "广州", (23.1291, 113.2644), 10, true, &["天河区", "越秀区", "海珠区", "荔湾区", "白云区", "番禺区", "黄埔区", "花都区"]),
    city("广东省", "深圳", (22.5431, 114.0579), 10, true, &["福田区", "南山区", "罗湖区", "宝安区", "龙岗区", "龙华区", "光明区", "盐田区"]),
    city("四川省", "成都", (30.5728, 104.0668), 10, true, &["锦江区", "青羊区", "金牛区", "武侯区", "成华区", "双流区", "郫都区", "龙泉驿区"]),
    city("浙江省", "杭州", (30.2741, 120.1551), 8, true, &["西湖区", "上城区", "拱墅区", "滨江区", "萧山区", "余杭区", "临平区"]),
    city("重庆市", "重庆", (29.5630, 106.5516), 9, false, &["渝中区", "江北区", "南岸区", "九龙坡区", "沙坪坝区", "渝北区", "大渡口区"]),
    city("湖北省", "武汉", (30.5928, 114.3055), 8, false, &["江岸区", "江汉区", "武昌区", "洪山区", "汉阳区", "硚口区", "青山区"]),
    city("江苏省", "南京", (32.0603, 118.7969), 7, false, &["玄武区", "秦淮区", "鼓楼区", "建邺区", "栖霞区", "江宁区", "浦口区"]),
    city("江苏省", "苏州", (31.2990, 120.5853), 7, false, &["姑苏区", "吴中区", "相城区", "虎丘区", "吴江区"]),
    city("陕西省", "西安", (34.3416, 108.9398), 6, false, &["雁塔区", "碑林区", "新城区", "莲湖区", "未央区", "灞桥区", "长安区"]),
    city("天津市", "天津", (39.3434, 117.3616), 6, false, &["和平区", "河西区", "南开区", "河东区", "河北区", "红桥区", "滨海新区"]),
    city("湖南省", "长沙", (28.2282, 112.9388), 6, false, &["芙蓉区", "天心区", "岳麓区", "开福区", "雨花区", "望城区"]),
    city("河南省", "郑州", (34.7466, 113.6254), 6, false, &["金水区", "二七区", "中原区", "管城回族区", "惠济区"]),
    city("山东省", "青岛", (36.0671, 120.3826), 5, false, &["市南区", "市北区", "李沧区", "崂山区", "黄岛区", "城阳区"]),
    city("辽宁省", "沈阳", (41.8057, 123.4315), 4, false, &["和平区", "沈河区", "皇姑区", "铁西区", "大东区", "浑南区"]),
    city("浙江省", "宁波", (29.8683, 121.5440), 4, false, &["海曙区", "江北区", "鄞州区", "北仑区", "镇海区"]),
    city("云南省", "昆明", (25.0389, 102.7183), 4, false, &["五华区", "盘龙区", "官渡区", "西山区", "呈贡区"]),
    city("安徽省", "合肥", (31.8206, 117.2272), 4, false, &["蜀山区", "包河区", "庐阳区", "瑶海区"]),
    city("福建省", "福州", (26.0745, 119.2965), 4, false, &["鼓楼区", "台江区", "仓山区", "晋安区", "马尾区"]),
    city("山东省", "济南", (36.6512, 117.1201), 4, false, &["历下区", "市中区", "槐荫区", "天桥区", "历城区"]),
    city("福建省", "厦门", (24.4798, 118.0894), 3, false, &["思明区", "湖里区", "集美区", "海沧区", "同安区", "翔安区"]),
    city("辽宁省", "大连", (38.9140, 121.6147), 3, false, &["中山区", "西岗区", "沙河口区", "甘井子区", "旅顺口区"]),
    city("黑龙江省", "哈尔滨", (45.8038, 126.5350), 3, false, &["道里区", "南岗区", "道外区", "香坊区", "松北区"]),
    city("吉林省", "长春", (43.8171, 125.3235), 3, false, &["朝阳区", "南关区", "宽城区", "二道区", "绿园区"]),
    city("广西壮族自治区", "南宁", (22.8170, 108.3665), 3, false, &["青秀区", "兴宁区", "西乡塘区", "江南区", "良庆区"]),
];

/// Cinema chains and how common each is.
pub const BRANDS: &[(&str, u32)] = &[
    ("万达影城", 14),
    ("CGV影城", 6),
    ("博纳国际影城", 7),
    ("金逸影城", 7),
    ("大地影院", 9),
    ("UME影城", 4),
    ("横店电影城", 8),
    ("星美国际影城", 5),
    ("中影国际影城", 6),
    ("保利国际影城", 4),
    ("卢米埃影城", 3),
    ("百老汇影城", 2),
    ("太平洋影城", 3),
    ("SFC上影影城", 3),
];

/// Shopping centres cinemas sit on the top floors of.
#[rustfmt::skip]
pub const MALLS: &[&str] = &[
    "万达广场", "万象城", "大悦城", "龙湖天街", "吾悦广场", "印象城", "来福士广场", "银泰城", "凯德广场", "爱琴海购物公园", "宝龙广场",
    "万象汇", "合生汇", "新天地", "太古里", "世纪金源",
];

/// Street names common to most Chinese cities.
#[rustfmt::skip]
pub const STREETS: &[&str] = &[
    "人民路", "中山路", "解放路", "建设路", "和平路", "新华路", "长江路", "黄河路", "文化路", "胜利路", "青年路", "朝阳路", "东风路",
    "友谊路", "光明路", "花园路", "滨江大道", "世纪大道", "学府路", "春熙路",
];

/// The largest distance of a cinema from its city centre, in kilometres.
pub const MAX_KM_FROM_CENTRE: f64 = 15.0;

/// A point `km` kilometres from the centre of `city` in direction `bearing` (radians), rounded
/// to six decimals (about 10 cm) so documents print cleanly.
pub fn offset(city: &City, km: f64, bearing: f64) -> (f64, f64) {
    const KM_PER_DEGREE: f64 = 111.32;
    let latitude = city.latitude + km * bearing.cos() / KM_PER_DEGREE;
    let longitude =
        city.longitude + km * bearing.sin() / (KM_PER_DEGREE * city.latitude.to_radians().cos());
    let round = |degrees: f64| (degrees * 1e6).round() / 1e6;
    (round(latitude), round(longitude))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_least_twenty_cities_with_the_six_majors() {
        assert!(CITIES.len() >= 20);
        let majors: Vec<_> = CITIES.iter().filter(|c| c.major).map(|c| c.name).collect();
        assert_eq!(majors, ["北京", "上海", "广州", "深圳", "成都", "杭州"]);
        for city in CITIES {
            assert!(city.districts.len() >= 4, "{} needs districts", city.name);
            assert!(
                (18.0..54.0).contains(&city.latitude) && (73.0..135.0).contains(&city.longitude)
            );
        }
    }

    #[test]
    fn offsets_stay_within_the_radius() {
        let shanghai = &CITIES[1];
        let (lat, lon) = offset(shanghai, MAX_KM_FROM_CENTRE, 1.0);
        let dy = (lat - shanghai.latitude) * 111.32;
        let dx = (lon - shanghai.longitude) * 111.32 * shanghai.latitude.to_radians().cos();
        assert!(((dx * dx + dy * dy).sqrt() - MAX_KM_FROM_CENTRE).abs() < 0.01);
    }
}
