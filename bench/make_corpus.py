"""Write a synthetic Chinese corpus with planted near-duplicates, for benchmarks.

    python bench/make_corpus.py [OUTDIR] --docs 10000 [--seed 7] [--truth PATH]

OUTDIR defaults to ``bench/corpora/synth_<docs>_s<seed>`` (git-ignored) and must be new or empty.
The planted pairs go to ``<OUTDIR>/../<OUTDIR name>_truth.csv`` (``left,right,kind``, paths
relative to OUTDIR with ``/``), or to ``--truth``.

The text is news-like, not real: a title line, a dated lead, paragraphs of sentences built from a
vocabulary of ~12,000 generated words over the 3,758 GB2312 level-1 characters (most frequent
first), Zipf-distributed so that character and word frequencies have the long-tailed shape of real
Chinese, with numbers, dates and units sprinkled in. Random generation from that vocabulary keeps unrelated documents from sharing
passages longer than a few words; only the planted pairs overlap substantially.

About 10 % of the files are planted derivations of another file, one derivation per source file:

``exact``       byte-identical copy in another folder
``format``      same text with other whitespace, full/half-width forms, line wrapping, a header line
``light_edit``  2-5 % of the characters replaced by other words
``number``      one number changed (e.g. 300万元 -> 350万元)
``date``        one date changed (e.g. 7月15日 -> 7月22日)
``excerpt``     15-40 % of a longer document, cut at sentence ends (contained in it)
``appended``    the whole document plus 20-60 % new text
``template``    a different text under the same 3-5 line header as its source (source gets it too)

About 8 % of the files are written in GB18030, the rest in UTF-8. Lengths follow a log-normal
distribution (mean ~1,500 characters) clipped to 200-20,000 characters; files are spread over 20
folders. The same ``--docs`` and ``--seed`` always give the same bytes and the same truth file.

Import :func:`generate` from another bench script (``bench/`` is on ``sys.path`` when a script
there runs): ``from make_corpus import generate``.
"""

from __future__ import annotations

import argparse
import csv
import os
import random
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

BENCH_DIR = Path(__file__).resolve().parent
DEFAULT_CORPORA = BENCH_DIR / "corpora"

KINDS = ("exact", "format", "light_edit", "number", "date", "excerpt", "appended", "template")
# Share of the planted files per kind (sums to 1).
KIND_SHARES = (0.05, 0.20, 0.20, 0.12, 0.08, 0.12, 0.11, 0.12)
PLANTED_SHARE = 0.10
GB18030_SHARE = 0.08
MIN_CHARS, MAX_CHARS = 200, 20_000
# Source documents stay below this so that derived files (appended text, headers) stay in range.
_MAX_SOURCE_CHARS = 19_000

FOLDERS = (
    "历史稿件", "网站转载", "通讯员来稿", "内部通知", "要闻部", "经济部", "政法部", "文体部",
    "评论部", "副刊", "县区版", "新媒体", "专题", "feeds_a", "feeds_b", "wire_2019",
    "wire_2020", "archive_2021", "archive_2022", "scans_ocr",
)  # fmt: skip

# Most frequent characters first (approximate order); the rest of GB2312 level 1 follows as the
# tail. Only the shape matters: a few hundred characters carry most of the text.
_HEAD_CHARS = (
    "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下"
    "过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都"
    "两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重"
    "新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想"
    "已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知"
    "较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处队南给色光门即保治北造"
    "百规热领七海口东导器压志世金增争济阶油思术极交受联什认六共权收证改清己美再采转更单风切打白"
    "教速花带安场身车例真务具万每目至达走积示议声报斗完类八离华名确才科张信马节话米整空元况今集"
    "温传土许步群广石记需段研界拉林律叫且究观越织装影算低持音众书布复容儿须际商非验连断深难近矿"
    "千周委素技备半办青省列习响约支般史感劳便团往酸历市克何除消构府称太准精值号率族维划选标写存"
    "候毛亲快效斯院查江型眼王按格养易置派层片始却专状育厂京识适属圆包火住调满县局照参红细引听该"
    "铁价严首底液官德随病苏失尔死讲配女黄推显谈罪神艺呢席含企望密批营项防举球英氧势告李台落木帮"
    "轮破亚师围注远字材排供河态封另施减树溶怎止案言士均武固叶鱼波视仅费紧爱左章早朝害续轻服试食"
    "充兵源判护司足某练差致板田降黑犯负击范继兴似余坚曲输修故城夫够送笔船占右财吃富春职觉汉画功"
    "巴跟虽杂飞检吸助升阳互初创抗考投坏策古径换未跑留钢曾端责站简述钱副尽帝射草冲承独令限阿宣环"
    "双请超微让控州良轴找否纪益依优顶础载倒房突坐粉敌略客袁冷胜绝析块剂测丝协诉念陈仍罗盐友洋错"
    "苦夜刑移频逐靠混母短皮终聚汽村云哪既距卫停烈央察烧迅境若印洲刻括激孔搞甚室待核校散侵吧甲游"
    "久菜味旧模湖货损预阻毫普稳乙妈植息扩银语挥酒守拿序纸医缺雨吗针刘啊急唱误训愿审附获茶鲜粮斤"
    "孩脱硫肥善龙演父渐血欢械掌歌沙刚攻谓盾讨晚粒乱燃矛乎杀药宁鲁贵钟煤读班伯香介迫句丰培握兰担"
    "弦蛋沉假穿执答乐谁顺烟缩征脸喜松脚困异免背星福买染井概慢怕磁倍祖皇促静补评翻肉践尼衣宽扬棉"
    "希伤操垂秋宜氢套督振架亮末宪庆编牛触映雷销诗座居抓裂胞呼娘景威绿晶厚盟衡鸡孙延危胶屋乡临陆"
    "顾掉呀灯岁措束耐剧玉赵跳哥季课凯胡额款绍卷齐伟蒸殖永宗苗川炉岩弱零杨奏沿露杆探滑镇饭浓航怀"
    "赶库夺伊灵税途灭赛归召鼓播盘裁险康唯录菌纯借糖盖横符私努堂域枪润幅哈竟熟虫泽脑壤碳欧遍侧寨"
    "敢彻虑斜薄庭纳弹饲伸折麦湿暗荷瓦塞床筑恶户访塔奇透梁刀旋迹卡氯遇份毒泥退洗摆灰彩卖耗夏择忙"
    "铜献硬予繁圈雪函亦抽篇阵阴丁尺追堆雄迎泛爸楼避谋吨野猪旗累偏典馆索秦脂潮爷豆忽托惊塑遗愈朱"
    "替纤粗倾尚痛楚谢奋购磨君池旁碎骨监捕弟暴割贯殊释词亡壁顿宝午尘闻揭炮残冬桥妇警综招吴付浮遭"
    "徐您摇谷赞箱隔订男吹园纷唐败宋玻巨耕坦荣闭湾键凡驻锅救恩剥凝碱齿截炼麻纺禁废盛版缓净睛昌婚"
    "涉筒嘴插岸朗庄街藏姑贸腐奴啦惯乘伙恢匀纱扎辩耳彪臣亿璃抵脉秀萨俄网舞店喷纵寸汗挂洪贺闪柬爆"
    "烯津稻墙软勇像滚厘蒙芳肯坡柱荡腿仪旅尾轧冰贡登黎削钻勒逃障氨郭峰币港伏轨亩毕擦莫刺浪秘援株"
    "健售股岛甘泡睡童铸汤阀休汇舍牧绕炸哲磷绩朋淡尖启陷柴呈徒颜泪稍忘泵蓝拖洞授镜辛壮锋贫虚弯摩"
    "泰幼廷尊窗纲弄隶疑氏宫姐震瑞怪尤琴循描膜违夹腰缘珠穷森枝竹沟催绳忆邦剩幸浆栏拥牙贮礼滤钠纹"
    "罢拍咱喊袖埃勤罚焦潜伍墨欲缝姓刊饱仿奖铝鬼丽跨默挖链扫喝袋炭污幕诸弧励梅奶洁灾舟鉴苯讼抱毁"
    "懂寒智埔寄届跃渡挑丹艰贝碰拔爹戴码梦芽熔赤渔哭敬颗奔铅仲虎稀妹乏珍申桌遵允隆螺仓魏锐晓氮兼"
    "隐碍赫拨忠肃缸牵抢博巧壳兄杜讯诚碧祥柯页巡矩悲灌龄伦票寻桂铺圣恐恰郑趣抬荒腾贴柔滴猛阔辆妻"
    "填撤储签闹扰紫砂递戏吊陶伐喂疗瓶婆抚臂摸忍虾蜡邻胸巩挤偶弃槽劲乳邓吉仁烂砖租乌舰伴瓜浅丙暂"
    "燥橡柳迷暖牌秧胆详簧踏瓷谱呆宾糊洛辉愤竞隙怒粘乃绪肩籍敏涂熙皆侦悬掘享纠醒狂锁淀恨牲霸爬赏"
    "逆玩陵祝秒浙貌役彼悉鸭趋凤晨畜辈秩卵署梯炎滩棋驱筛峡冒啥寿译浸泉帽迟硅疆贷漏稿冠嫩胁芯牢叛"
    "蚀奥鸣岭羊凭串塘绘酵融盆锡庙筹冻辅摄袭筋拒僚旱钾鸟漆沈眉疏添棒穗硝韩逼扭侨凉挺碗栽炒杯患馏"
    "劝豪辽勃鸿旦吏拜狗埋辊掩饮搬骂辞勾扣估蒋绒雾丈朵姆拟宇辑陕雕偿蓄崇剪倡厅咬驶薯刷斥番赋奉佛"
    "浇漫曼扇钙桃扶仔返俗亏腔鞋棱覆框悄叔撞骗勘旺沸孤吐孟渠屈疾妙惜仰狠胀谐抛霉桑岗嘛衰盗渗脏赖"
    "涌甜曹阅肌哩厉烃纬毅昨伪症煮叹钉搭茎笼酷偷弓锥恒杰坑鼻翼纶叙狱逮罐络棚抑膨蔬寺骤穆冶枯册尸"
    "凸绅坯牺焰轰欣晋瘦御锭锦丧旬锻垄搜扑邀亭酯迈舒脆酶闲忧酚顽羽涨卸仗陪辟惩杭姚肚捉飘漂昆欺吾"
    "郎烷汁呵饰萧雅邮迁燕撒姻赴宴烦债帐斑铃旨醇董饼雏姿拌傅腹妥揉贤拆歪葡胺丢浩徽昂垫挡览贪慰缴"
    "汪慌冯诺姜谊凶劣诬耀昏躺盈骑乔溪丛卢抹闷咨刮驾缆悟摘铒掷颇幻柄惠惨佳仇腊窝涤剑瞧堡泼葱罩霍"
    "捞胎苍滨俩捅湘砍霞邵萄疯淮遂熊粪烘宿档戈驳嫂裕徙箭捐肠撑晒辨殿莲摊搅酱屏疫哀蔡堵沫皱畅叠阁"
    "莱敲辖钩痕坝巷饿祸丘玄溜曰逻彭尝卿妨艇吞韦怨矮歇"
)

# Frequent one-character function words, used as words of their own.
_FUNCTION_WORDS = (
    "的", "了", "是", "在", "和", "有", "也", "就", "都", "与", "对", "将", "把", "被", "为",
    "从", "向", "等", "中", "上", "这", "其", "而", "并", "但", "又", "还", "要", "会", "能",
    "已", "由", "以", "于", "之", "所", "着", "过", "给", "让", "不", "很", "最", "更", "每",
    "各", "该", "此", "及", "后",
)  # fmt: skip

_UNITS = ("万元", "亿元", "元", "人", "个", "户", "家", "项", "公里", "平方米", "吨", "所", "件", "辆", "%")
_SITES = ("青溪新闻网", "东湖在线", "江城资讯", "南岭日报网", "城市生活网", "政务信息网")
_NUMBER_RE = re.compile(r"(?<![0-9.])([0-9]+)(?=万元|亿元|元|人|个|户|家|项|公里|平方米|吨|所|件|辆|%)")
_DATE_RE = re.compile(r"([0-9]{1,2})月([0-9]{1,2})日")

_FULLWIDTH = str.maketrans("0123456789%,:;()!?", "０１２３４５６７８９％，：；（）！？")
_TO_HALF_PUNCT = (("，", ", "), ("：", ": "), ("；", "; "), ("（", "("), ("）", ")"), ("！", "!"), ("？", "?"))


@dataclass
class _File:
    """One file to write: path relative to the corpus folder, text, encoding."""

    rel: str
    text: str
    encoding: str = "utf-8"


class _Writer:
    """Draws words, sentences and documents from one seeded vocabulary."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.py = random.Random(seed)
        chars = _char_inventory()
        char_p = _zipf(len(chars), exponent=1.05, offset=8.0)
        self.char_cdf = np.cumsum(char_p)
        words = list(_FUNCTION_WORDS)
        seen = set(words)
        lengths = self.rng.choice([1, 2, 3, 4], size=30_000, p=[0.06, 0.68, 0.14, 0.12])
        picks = np.searchsorted(self.char_cdf, self.rng.random(int(lengths.sum())) * self.char_cdf[-1])
        pos = 0
        for n in lengths.tolist():
            word = "".join(chars[i] for i in picks[pos : pos + n])
            pos += n
            if word not in seen:
                seen.add(word)
                words.append(word)
            if len(words) >= 12_000:
                break
        self.words = words
        self.word_cdf = np.cumsum(_zipf(len(words), exponent=1.0, offset=4.0))

    # -- pieces ---------------------------------------------------------------------------
    def _word_ids(self, n: int) -> list[int]:
        return np.searchsorted(self.word_cdf, self.rng.random(n) * self.word_cdf[-1]).tolist()

    def _number(self) -> str:
        py = self.py
        roll = py.random()
        if roll < 0.25:
            return f"{py.randint(2, 12)}月{py.randint(1, 28)}日"
        if roll < 0.35:
            return f"{py.randint(1998, 2025)}年"
        if roll < 0.45:
            return f"{py.randint(1, 99)}.{py.randint(1, 9)}%"
        return f"{py.randint(2, 3000)}{py.choice(_UNITS)}"

    def title(self) -> str:
        words = [self.words[i] for i in self._word_ids(self.py.randint(4, 9))]
        if self.py.random() < 0.5:
            words.insert(self.py.randint(1, len(words)), " ")
        return "".join(words).strip()

    def body(self, target: int, lead: bool = True) -> str:
        """About ``target`` characters of paragraphs (never much shorter)."""
        py = self.py
        words = self.words
        ids = self._word_ids(int(target * 0.75) + 40)
        paragraphs: list[str] = []
        para: list[str] = []
        size = 0
        if lead:
            para.append(f"{py.randint(1, 12)}月{py.randint(1, 28)}日，")
        sentences_left = py.randint(2, 6)
        pos = 0
        while size < target:
            if pos + 12 > len(ids):
                ids = self._word_ids(200)
                pos = 0
            clause_len = py.randint(2, 9)
            picked = ids[pos : pos + clause_len]
            pos += clause_len
            # Drop a word repeated right after itself ("是是"): rare in real text.
            clause = "".join(words[w] for k, w in enumerate(picked) if k == 0 or w != picked[k - 1])
            if py.random() < 0.12:
                clause += self._number()
            roll = py.random()
            if roll < 0.55:
                end = "，"
            elif roll < 0.62:
                end = "、"
            elif roll < 0.67:
                end = "；"
            else:
                end = "。" if roll < 0.97 else py.choice("？！")
            para.append(clause + end)
            size += len(clause) + 1
            if end in "。？！":
                sentences_left -= 1
                if sentences_left == 0:
                    paragraphs.append("".join(para))
                    para = []
                    sentences_left = py.randint(2, 6)
        if para:
            text = "".join(para)
            paragraphs.append(text[:-1] + "。")
        return "\n".join(paragraphs)

    def document(self, target: int) -> str:
        title = self.title()
        return title + "\n" + self.body(max(target - len(title) - 2, 60)) + "\n"

    def template(self) -> str:
        """A 3-5 line header (column note, disclaimer, contact), shared by a planted pair."""
        py = self.py
        lines = [f"【{self.title()[:8]}】栏目说明"]
        for _ in range(py.randint(2, 4)):
            lines.append(self.body(py.randint(40, 90), lead=False).replace("\n", ""))
        return "\n".join(lines) + "\n"

    # -- derivations ----------------------------------------------------------------------
    def format_copy(self, text: str) -> str:
        py = self.py
        out = text
        if py.random() < 0.6:
            out = out.translate(_FULLWIDTH)
        elif py.random() < 0.7:
            for full, half in _TO_HALF_PUNCT:
                out = out.replace(full, half)
        lines = out.split("\n")
        if py.random() < 0.4:
            width = py.randint(28, 40)
            lines = [piece for line in lines for piece in _wrap(line, width)]
        if py.random() < 0.5:
            lines = ["　　" + line if line else line for line in lines]
        sep = "\n\n" if py.random() < 0.6 else "\n"
        out = sep.join(line + (" " if py.random() < 0.3 else "") for line in lines)
        if py.random() < 0.7:
            site = py.choice(_SITES)
            stamp = f"20{py.randint(15, 25)}-{py.randint(1, 12):02d}-{py.randint(1, 28):02d}"
            out = f"来源：{site}　发布时间：{stamp} {py.randint(0, 23):02d}:{py.randint(0, 59):02d}\n\n" + out
        if py.random() < 0.3:
            out = out.replace("\n", "\r\n")
        return out

    def light_edit(self, text: str) -> str:
        py = self.py
        chars = list(text)
        budget = max(3, int(len(chars) * py.uniform(0.02, 0.05)))
        changed = 0
        while changed < budget:
            at = py.randrange(len(chars))
            span = py.randint(1, 4)
            if not all(_is_cjk(c) for c in chars[at : at + span]):
                continue
            word = self.words[self._word_ids(1)[0]]
            chars[at : at + span] = list(word)
            changed += max(span, len(word))
        return "".join(chars)

    def revise_number(self, text: str) -> str:
        matches = list(_NUMBER_RE.finditer(text))
        if not matches:
            return text.replace("。", f"，共计{self.py.randint(2, 900)}人。", 1)
        m = self.py.choice(matches)
        old = int(m.group(1))
        new = old + self.py.choice([-1, 1]) * max(1, round(old * self.py.uniform(0.05, 0.5)))
        new = new if new > 0 and new != old else old + 1
        return text[: m.start(1)] + str(new) + text[m.end(1) :]

    def revise_date(self, text: str) -> str:
        m = self.py.choice(list(_DATE_RE.finditer(text)))  # every body has a dated lead
        month, day = int(m.group(1)), int(m.group(2))
        new_day = (day - 1 + self.py.choice([1, 2, 3, 7, 14])) % 28 + 1
        return text[: m.start()] + f"{month}月{new_day}日" + text[m.end() :]

    def excerpt(self, text: str) -> str:
        ends = [i + 1 for i, c in enumerate(text) if c in "。？！"]
        share = self.py.uniform(0.15, 0.40)
        want = max(MIN_CHARS, int(len(text) * share))
        starts = [0] + ends[:-1]
        start = self.py.choice([s for s in starts if len(text) - s >= want] or [0])
        stop = next((e for e in ends if e - start >= want), len(text))
        return text[start:stop].strip() + "\n"

    def appended(self, text: str) -> str:
        extra = min(max(150, int(len(text) * self.py.uniform(0.2, 0.6))), MAX_CHARS - 200 - len(text))
        return text.rstrip("\n") + "\n" + self.body(extra, lead=False) + "\n"


def _char_inventory() -> list[str]:
    """Common characters, most frequent first: the embedded head, then GB2312 level 1."""
    seen: dict[str, None] = dict.fromkeys(_HEAD_CHARS)
    for hi in range(0xB0, 0xD8):
        for lo in range(0xA1, 0xFF):
            try:
                ch = bytes((hi, lo)).decode("gb2312")
            except UnicodeDecodeError:
                continue
            seen.setdefault(ch, None)
    return list(seen)


def _zipf(n: int, exponent: float, offset: float) -> np.ndarray:
    ranks = np.arange(1, n + 1, dtype=np.float64)
    weights = 1.0 / (ranks + offset) ** exponent
    return weights / weights.sum()


def _wrap(line: str, width: int) -> list[str]:
    return [line[i : i + width] for i in range(0, len(line), width)] or [""]


def _is_cjk(ch: str) -> bool:
    return "\u4e00" <= ch <= "\u9fff"


def _lengths(rng: np.random.Generator, n: int) -> list[int]:
    """Long-tailed document lengths: log-normal, mean ~1,500, clipped to 200-20,000."""
    raw = rng.lognormal(mean=np.log(1080.0), sigma=0.8, size=n)
    return np.clip(raw, MIN_CHARS, _MAX_SOURCE_CHARS).astype(int).tolist()


def generate(outdir: str | os.PathLike[str], docs: int, seed: int = 7) -> list[tuple[str, str, str]]:
    """Write ``docs`` synthetic Chinese text files under ``outdir`` with planted near-duplicates.

    Args:
        outdir: Folder to create (or an empty existing one).
        docs: Number of files to write, at least 20; 10 % of them are planted derivatives.
        seed: Seed for every random choice; same ``docs`` and ``seed`` give identical bytes.

    Returns:
        The planted pairs as ``(left, right, kind)``: paths relative to ``outdir`` with ``/``
        separators, ``left`` the source document, ``right`` the derived one, ``kind`` one of
        :data:`KINDS`.

    Raises:
        ValueError: ``docs`` is below 20.
        FileExistsError: ``outdir`` exists and is not an empty folder.
    """
    if docs < 20:
        raise ValueError("docs must be at least 20")
    out = Path(outdir)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise FileExistsError(f"{out} exists and is not empty; choose a new folder")

    writer = _Writer(seed)
    py, rng = writer.py, writer.rng
    planted = max(len(KINDS), round(docs * PLANTED_SHARE))
    bases = docs - planted
    counts = [int(planted * share) for share in KIND_SHARES]
    counts[KINDS.index("format")] += planted - sum(counts)

    names = rng.permutation(docs).tolist()  # file numbers, so derived files are not all at the end
    lengths = _lengths(rng, bases)
    files: list[_File] = []

    def new_path(i: int, avoid: str = "") -> str:
        folder = py.choice([f for f in FOLDERS if f != avoid])
        # Some Chinese file names in the Chinese-named folders, as in real archives.
        prefix = "稿件" if not folder.isascii() and names[i] % 3 == 0 else ""
        return f"{folder}/{prefix}{names[i]:06d}.txt"

    for i in range(bases):
        files.append(_File(new_path(i), writer.document(lengths[i])))

    long_enough = [i for i in range(bases) if lengths[i] >= 900]
    py.shuffle(long_enough)
    others = [i for i in range(bases) if lengths[i] < 900]
    py.shuffle(others)

    def take(long: bool) -> int:
        """A source document not used by another planted pair (long ones for cut-outs)."""
        pool = long_enough if (long and long_enough) or not others else others
        return pool.pop()

    truth: list[tuple[str, str, str]] = []
    index = bases
    for kind, count in zip(KINDS, counts, strict=True):
        for _ in range(count):
            src = take(long=kind in ("excerpt", "light_edit") or py.random() < 0.5)
            base = files[src]
            if kind == "exact":
                derived = _File("", base.text)  # same text, and below the same encoding
            elif kind == "format":
                derived = _File("", writer.format_copy(base.text))
            elif kind == "light_edit":
                derived = _File("", writer.light_edit(base.text))
            elif kind == "number":
                derived = _File("", writer.revise_number(base.text))
            elif kind == "date":
                derived = _File("", writer.revise_date(base.text))
            elif kind == "excerpt":
                derived = _File("", writer.excerpt(base.text))
            elif kind == "appended":
                derived = _File("", writer.appended(base.text))
            else:  # template
                header = writer.template()
                base.text = header + base.text
                size = min(int(lengths[src] * py.uniform(0.5, 1.5)), _MAX_SOURCE_CHARS)
                derived = _File("", header + writer.document(size))
            derived.rel = new_path(index, avoid=base.rel.split("/")[0] if kind == "exact" else "")
            files.append(derived)
            truth.append((base.rel, derived.rel, kind))
            index += 1

    for f in files:
        if py.random() < GB18030_SHARE:
            f.encoding = "gb18030"
    by_rel = {f.rel: f for f in files}
    for left, right, kind in truth:
        if kind == "exact":
            by_rel[right].encoding = by_rel[left].encoding

    out.mkdir(parents=True, exist_ok=True)
    for folder in FOLDERS:
        (out / folder).mkdir(exist_ok=True)
    for f in files:
        with open(out / f.rel, "wb") as fh:
            fh.write(f.text.encode(f.encoding))
    return truth


def write_truth(path: str | os.PathLike[str], truth: list[tuple[str, str, str]]) -> None:
    """Write planted pairs as CSV (``left,right,kind``; UTF-8 with BOM so Excel shows Chinese)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    with open(tmp, "w", encoding="utf-8-sig", newline="") as fh:
        out = csv.writer(fh, lineterminator="\n")
        out.writerow(["left", "right", "kind"])
        out.writerows(truth)
    os.replace(tmp, target)


def default_truth_path(outdir: Path) -> Path:
    return outdir.parent / f"{outdir.name}_truth.csv"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "outdir", nargs="?", type=Path, help="new or empty folder (default bench/corpora/synth_<docs>_s<seed>)"
    )
    parser.add_argument("--docs", type=int, default=10_000, help="number of files (default 10000)")
    parser.add_argument("--seed", type=int, default=7, help="random seed (default 7)")
    parser.add_argument(
        "--truth", type=Path, help="planted-pairs CSV (default <outdir>/../<outdir name>_truth.csv)"
    )
    args = parser.parse_args(argv)
    outdir = args.outdir or DEFAULT_CORPORA / f"synth_{args.docs}_s{args.seed}"
    truth_path = args.truth or default_truth_path(outdir)
    started = time.perf_counter()
    try:
        truth = generate(outdir, args.docs, args.seed)
    except (ValueError, FileExistsError) as exc:
        print(f"make_corpus: {exc}", file=sys.stderr)
        return 2
    write_truth(truth_path, truth)
    elapsed = time.perf_counter() - started
    print(f"{args.docs} files in {outdir}, {len(truth)} planted pairs in {truth_path} ({elapsed:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
