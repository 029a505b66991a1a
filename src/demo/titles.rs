//! Movie titles: per genre, a head and a tail that read as a Chinese title ("深空" + "信号")
//! and, for imported films, as an English original title ("Deep Space Signal").

use std::collections::HashSet;

use super::random::{pick, DemoRng};

/// The genres, in the order the first movies take them as their main genre.
#[rustfmt::skip]
pub const GENRES: [&str; 10] = ["科幻", "动作", "喜剧", "爱情", "动画", "剧情", "悬疑", "战争", "纪录片", "家庭"];

/// Title words of a genre: heads are (Chinese, English); tails are (Chinese, English pattern
/// where `{}` stands for the head).
struct Words {
    heads: &'static [(&'static str, &'static str)],
    tails: &'static [(&'static str, &'static str)],
}

#[rustfmt::skip]
const WORDS: [Words; 10] = [
    Words {
        heads: &[("深空", "Deep Space"), ("星河", "Galaxy"), ("量子", "Quantum"), ("火星", "Mars"), ("月球", "Moon"), ("光年", "Light Year")],
        tails: &[("信号", "{} Signal"), ("迷航", "Lost in {}"), ("纪元", "{} Era"), ("方舟", "{} Ark"), ("救援", "{} Rescue"), ("觉醒", "{} Awakening")],
    },
    Words {
        heads: &[("雷霆", "Thunder"), ("孤狼", "Lone Wolf"), ("暗影", "Shadow"), ("铁血", "Iron Blood"), ("猎鹰", "Falcon"), ("怒海", "Raging Sea")],
        tails: &[("行动", "Operation {}"), ("突围", "{} Breakout"), ("追击", "{} Pursuit"), ("风暴", "{} Storm"), ("战线", "{} Front"), ("营救", "{} Rescue")],
    },
    Words {
        heads: &[("开心", "Happy"), ("疯狂", "Crazy"), ("超级", "Super"), ("快乐", "Joyful"), ("奇葩", "Oddball"), ("倒霉", "Unlucky")],
        tails: &[("一家人", "The {} Family"), ("假期", "{} Holiday"), ("室友", "{} Roommates"), ("婚礼", "{} Wedding"), ("老爸", "{} Dad"), ("大作战", "{} Showdown")],
    },
    Words {
        heads: &[("初夏", "Early Summer"), ("海边", "the Seaside"), ("雨季", "the Rainy Season"), ("旧时光", "Old Times"), ("月光", "Moonlight"), ("晚风", "the Evening Breeze")],
        tails: &[("恋人", "Lovers of {}"), ("来信", "Letters from {}"), ("之约", "A Promise of {}"), ("情书", "Love Letter from {}"), ("告白", "Confession in {}"), ("的你", "You in {}")],
    },
    Words {
        heads: &[("小龙", "the Little Dragon"), ("熊猫", "the Panda"), ("山海", "Mountains and Seas"), ("小狐仙", "the Fox Fairy"), ("森林", "the Forest"), ("云朵", "the Clouds")],
        tails: &[("历险记", "Adventures of {}"), ("奇遇", "{}: A Wonderful Journey"), ("大冒险", "{}: The Great Adventure"), ("传说", "Legend of {}"), ("归来", "Return of {}"), ("之歌", "Song of {}")],
    },
    Words {
        heads: &[("故乡", "Home"), ("长河", "the Long River"), ("小城", "a Small Town"), ("父亲", "My Father"), ("山村", "the Mountain Village"), ("码头", "the Docks")],
        tails: &[("往事", "Tales of {}"), ("岁月", "Years of {}"), ("之光", "Light of {}"), ("的秋天", "Autumn of {}"), ("记忆", "Memories of {}"), ("十年", "Ten Years of {}")],
    },
    Words {
        heads: &[("午夜", "Midnight"), ("迷雾", "the Mist"), ("镜中", "the Mirror"), ("无声", "Silence"), ("雪夜", "the Snowy Night"), ("暗河", "the Dark River")],
        tails: &[("追凶", "Hunting in {}"), ("疑云", "Mystery of {}"), ("证人", "Witness of {}"), ("密室", "Room of {}"), ("迷局", "The Game of {}"), ("来客", "Stranger of {}")],
    },
    Words {
        heads: &[("孤岛", "the Lone Island"), ("江桥", "the River Bridge"), ("高地", "the Highland"), ("北线", "the Northern Front"), ("黎明", "Dawn"), ("冰河", "the Frozen River")],
        tails: &[("阻击", "Stand at {}"), ("保卫战", "Defense of {}"), ("突击", "Assault on {}"), ("英雄", "Heroes of {}"), ("战歌", "Battle Song of {}"), ("守望", "Watch over {}")],
    },
    Words {
        heads: &[("长江", "the Yangtze"), ("大漠", "the Desert"), ("雪域", "the Snowlands"), ("四季", "Four Seasons"), ("海洋", "the Ocean"), ("古道", "the Ancient Road")],
        tails: &[("之声", "Voices of {}"), ("纪行", "Journey through {}"), ("生灵", "Creatures of {}"), ("的故事", "The Story of {}"), ("守护者", "Guardians of {}"), ("影像", "Images of {}")],
    },
    Words {
        heads: &[("外婆", "Grandma"), ("奶奶", "Granny"), ("爷爷", "Grandpa"), ("老爸", "Dad"), ("小妹", "Little Sister"), ("舅舅", "Uncle")],
        tails: &[("的夏天", "Summer with {}"), ("的礼物", "A Gift from {}"), ("的秘密", "{}'s Secret"), ("的约定", "A Promise to {}"), ("回家", "{} Comes Home"), ("的冬天", "Winter with {}")],
    },
];

/// The titles drawn so far, and their heads.
#[derive(Debug, Default)]
pub struct Titles {
    titles: HashSet<String>,
    heads: HashSet<&'static str>,
}

impl Titles {
    /// A new title of the genre `genre` (an index of [`GENRES`]): (Chinese, English). Heads
    /// not used yet are preferred so titles do not all start alike; once a genre's 36
    /// combinations are taken, sequels follow ("深空信号2").
    pub fn draw(&mut self, rng: &mut DemoRng, genre: usize) -> (String, String) {
        let words = &WORDS[genre];
        let mut attempt = 0;
        loop {
            let &(head, head_en) = pick(rng, words.heads);
            let &(tail, pattern) = pick(rng, words.tails);
            let mut chinese = format!("{head}{tail}");
            let mut english = capitalized(&pattern.replace("{}", head_en));
            let sequel = attempt / 20;
            attempt += 1;
            if attempt < 10 && self.heads.contains(head) {
                continue;
            }
            if sequel > 0 {
                chinese = format!("{chinese}{}", sequel + 1);
                english = format!("{english} {}", sequel + 1);
            }
            if self.titles.insert(chinese.clone()) {
                self.heads.insert(head);
                return (chinese, english);
            }
        }
    }
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo::random::{rng, Stream};

    #[test]
    fn titles_are_unique_even_past_the_word_combinations() {
        let mut rng = rng(1, Stream::Movies);
        let mut taken = Titles::default();
        let titles: Vec<_> = (0..60).map(|_| taken.draw(&mut rng, 0)).collect();
        assert_eq!(
            titles.iter().map(|t| &t.0).collect::<HashSet<_>>().len(),
            60
        );
        assert!(titles
            .iter()
            .all(|(_, en)| en.starts_with(|c: char| c.is_ascii_uppercase())));
    }

    #[test]
    fn english_titles_read_naturally() {
        assert_eq!(
            capitalized(&"Letters from {}".replace("{}", "the Seaside")),
            "Letters from the Seaside"
        );
        assert_eq!(capitalized("the Panda"), "The Panda");
    }
}
