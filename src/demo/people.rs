//! People and words: names of directors and actors, characters, reviewers' nicknames, review
//! texts and plot summaries.

use rand::Rng;

use super::random::{pick, DemoRng};

const SURNAMES: &[&str] = &[
    "王", "李", "张", "刘", "陈", "杨", "黄", "赵", "吴", "周", "徐", "孙", "马", "朱", "胡", "郭",
    "何", "林", "高", "罗", "郑", "梁", "谢", "宋", "唐", "许", "韩", "冯", "邓", "曹", "彭", "曾",
    "田", "董", "潘", "袁", "蔡", "蒋", "余", "叶", "程", "魏", "苏", "吕", "丁", "沈", "任",
    "欧阳",
];

const GIVEN: &[&str] = &[
    "伟", "芳", "娜", "敏", "静", "磊", "洋", "勇", "杰", "婷", "雪", "晨", "宇", "浩", "然", "欣",
    "博", "文", "思", "嘉", "子", "轩", "一", "鸣", "天", "佳", "怡", "梓", "涵", "晓", "明", "志",
    "强", "丽", "华", "俊", "凯", "琳", "雨", "桐", "若", "安", "泽", "瑶", "峰", "亮", "颖", "辰",
];

const WESTERN_FIRST: &[&str] = &[
    "詹姆斯",
    "迈克尔",
    "大卫",
    "约翰",
    "罗伯特",
    "托马斯",
    "丹尼尔",
    "马修",
    "艾米丽",
    "安娜",
    "莎拉",
    "杰西卡",
    "劳拉",
    "凯特",
    "奥利维亚",
    "艾玛",
    "本杰明",
    "亚当",
];

const WESTERN_LAST: &[&str] = &[
    "史密斯",
    "约翰逊",
    "布朗",
    "威尔逊",
    "泰勒",
    "米勒",
    "安德森",
    "汤普森",
    "怀特",
    "哈里斯",
    "克拉克",
    "刘易斯",
    "沃克",
    "霍尔",
    "艾伦",
    "斯科特",
    "格林",
    "贝克",
];

/// Parts people play besides the leads.
const ROLES: &[&str] = &[
    "队长",
    "老板娘",
    "警官",
    "医生",
    "出租车司机",
    "记者",
    "小女孩",
    "神秘人",
    "邻居",
    "教授",
    "房东",
    "服务员",
    "保安",
    "老师",
    "校长",
    "船长",
    "路人",
    "店员",
];

const NICK_HEADS: &[&str] = &[
    "爱看电影的",
    "周末",
    "深夜",
    "路过的",
    "小城",
    "追光的",
    "安静的",
    "爆米花",
    "胶片",
    "一只",
    "南方的",
    "北方的",
    "加班的",
    "快乐的",
];

const NICK_TAILS: &[&str] = &[
    "小王",
    "阿杰",
    "猫",
    "影迷",
    "少年",
    "大叔",
    "兔子",
    "观众",
    "鱼",
    "喵",
    "打工人",
    "老张",
];

/// A Chinese name: a surname and one or two given characters.
pub fn chinese_name(rng: &mut DemoRng) -> String {
    let mut name = pick(rng, SURNAMES).to_string();
    for _ in 0..rng.random_range(1..=2) {
        let given = *pick(rng, GIVEN);
        name.push_str(given);
    }
    name
}

/// A Western name as Chinese media write it: "詹姆斯·布朗".
pub fn western_name(rng: &mut DemoRng) -> String {
    format!("{}·{}", pick(rng, WESTERN_FIRST), pick(rng, WESTERN_LAST))
}

/// A supporting part known by what the character does.
pub fn role(rng: &mut DemoRng) -> String {
    pick(rng, ROLES).to_string()
}

/// A reviewer's nickname, sometimes with a number: "深夜影迷", "一只猫2046".
pub fn nickname(rng: &mut DemoRng) -> String {
    let name = format!("{}{}", pick(rng, NICK_HEADS), pick(rng, NICK_TAILS));
    if rng.random_bool(0.3) {
        format!("{name}{}", rng.random_range(1..10_000))
    } else {
        name
    }
}

const PRAISE: &[&str] = &[
    "剧情紧凑，节奏很好，强烈推荐！",
    "看哭了，后劲很大。",
    "画面和配乐都很棒，值回票价。",
    "今年看过最好的一部，准备二刷。",
    "{actor}的演技太好了，每个眼神都有戏。",
    "细节满满，导演很用心。",
    "带爸妈一起看的，全家都说好。",
];

const SO_SO: &[&str] = &[
    "中规中矩，打发时间还行。",
    "前半段不错，后半段有点拖。",
    "特效可以，故事一般。",
    "{actor}撑起了整部片子，可惜剧本太弱。",
    "有几个笑点，但整体平平。",
    "期待太高了，有点失望。",
];

const PANS: &[&str] = &[
    "剧情太散，看得想睡觉。",
    "预告片就是全部精华。",
    "逻辑漏洞太多，看不下去。",
    "浪费了一个好题材。",
    "{actor}尽力了，但救不了这个剧本。",
];

/// A short review text matching a rating of 1 to 10, sometimes naming one of the actors.
pub fn review_text(rng: &mut DemoRng, rating: i32, actors: &[String]) -> String {
    let texts = match rating {
        8.. => PRAISE,
        5..=7 => SO_SO,
        _ => PANS,
    };
    let mut text = pick(rng, texts).to_string();
    if rng.random_bool(0.3) {
        let more = pick(rng, texts);
        if !text.contains(more) {
            text.push_str(more);
        }
    }
    match actors {
        [] => text.replace("{actor}", "主演"),
        _ => text.replace("{actor}", pick(rng, actors).as_str()),
    }
}

/// One-sentence plots by genre (as in [`super::titles::GENRES`]); `{lead}` is the lead's part.
const PLOTS: [&str; 10] = [
    "公元2150年，宇航员{lead}在深空中收到一段来自未知文明的信号，人类的命运由此改变。",
    "退役特种兵{lead}为救出被绑架的家人，孤身闯入跨国犯罪集团的老巢。",
    "{lead}阴差阳错地和一群陌生人度过了一个鸡飞狗跳的假期，笑料百出。",
    "{lead}在一个夏天遇见了改变自己一生的人，多年后两人在同一座城市重逢。",
    "小镇少年{lead}意外获得神秘力量，踏上拯救家园的奇幻冒险。",
    "{lead}在时代洪流中坚守初心，几十年的人生起落折射出一座小城的变迁。",
    "一场暴雪之后，{lead}发现身边的每个人都藏着秘密，而真相远比想象中可怕。",
    "{lead}率领一支孤立无援的小分队，在冰天雪地中坚守阵地七天七夜。",
    "摄制组历时三年，跟随{lead}的脚步，记录下壮美山河与普通人的生活。",
    "{lead}带着孩子回老家过年，一家三代在团聚中解开了多年的心结。",
];

const MORE_PLOT: &[&str] = &[
    "然而一切并不像表面看起来那样简单。",
    "在一次次的选择中，每个人都不得不直面内心的恐惧。",
    "意想不到的转折接踵而至，结局令人动容。",
    "影片在多地实景拍摄，历时十四个月完成。",
    "这是一个关于勇气、成长与告别的故事。",
    "老朋友的突然出现让事情变得更加复杂。",
];

/// (plot, full plot) of a movie of genre index `genre` whose lead plays `lead`.
pub fn plots(rng: &mut DemoRng, genre: usize, lead: &str, director: &str) -> (String, String) {
    let plot = PLOTS[genre].replace("{lead}", lead);
    let mut full = plot.clone();
    let first = rng.random_range(0..MORE_PLOT.len());
    let second = (first + rng.random_range(1..MORE_PLOT.len())) % MORE_PLOT.len();
    full.push_str(MORE_PLOT[first]);
    full.push_str(MORE_PLOT[second]);
    full.push_str(&format!("本片由{director}执导。"));
    (plot, full)
}
