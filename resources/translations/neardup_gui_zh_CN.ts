<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name></name>
    <message>
        <location filename="../../neardup_gui/ui/diff_highlights.py" line="+111"/>
        <source>missing here</source>
        <translation>此处缺失</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Text the other side has at this point and this side lacks</source>
        <translation>另一侧在此处有而本侧没有的文字</translation>
    </message>
    <message>
        <location filename="../../neardup_gui/ui/diff_pane.py" line="+402"/>
        <source>The other side has text here that this side lacks</source>
        <translation>另一侧在此处有本侧没有的文字</translation>
    </message>
    <message>
        <location filename="../../neardup_gui/ui/labels.py" line="+178"/>
        <source>(no pattern)</source>
        <translation>（未填写匹配规则）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>only pairs with the same {0}</source>
        <translation>仅比较 {0} 相同的文档对</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>new documents against the reference archive {0} (the archive is not compared with itself)</source>
        <translation>新稿件对照参考档案 {0}（档案内部不互相比较）</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>only pairs across the two sets: {0} against the rest</source>
        <translation>仅比较跨两组的文档对：{0} 对照其余文档</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>all pairs</source>
        <translation>全部文档对</translation>
    </message>
    <message>
        <location line="+29"/>
        <source>{0} s</source>
        <translation>{0} 秒</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{0} min</source>
        <translation>{0} 分钟</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{0} h {1} min</source>
        <translation>{0} 小时 {1} 分钟</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>{0} days {1} h</source>
        <translation>{0} 天 {1} 小时</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Comparing every pair of these {0} documents by exact Jaccard would take about {1}; this method is refused past {2}. Choose MinHash + LSH (the default) for a folder this large, or screen part of it.</source>
        <translation>用精确 Jaccard 两两比较这 {0} 个文档约需 {1}，超过本方法的上限 {2}，因此未执行。如此规模的文件夹请选择 MinHash + LSH（默认方法），或只筛查其中一部分。</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>The character TF-IDF cosine method over {0} documents ({1} characters) needs about {2} of memory at its peak, and this computer has {3} available. Choose MinHash + LSH (the default) for a folder this large, or screen part of it.</source>
        <translation>字符 TF-IDF 余弦方法处理 {0} 个文档（{1} 个字符）时内存峰值约需 {2}，而本机可用内存只有 {3}。如此规模的文件夹请选择 MinHash + LSH（默认方法），或只筛查其中一部分。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>The SimHash method over {0} documents ({1} characters) needs about {2} of memory at its peak, and this computer has {3} available. Choose MinHash + LSH (the default) for a folder this large, or screen part of it.</source>
        <translation>SimHash 方法处理 {0} 个文档（{1} 个字符）时内存峰值约需 {2}，而本机可用内存只有 {3}。如此规模的文件夹请选择 MinHash + LSH（默认方法），或只筛查其中一部分。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>TF-IDF cosine and SimHash scores for every pair of {0} documents ({1} characters) need about {2} of memory at their peak, and this computer has {3} available. Leave these scores to the automatic setting (they are then left out of screens this large), or screen part of the folder.</source>
        <translation>为 {0} 个文档（{1} 个字符）的每个文本对计算 TF-IDF 余弦和 SimHash 分数时内存峰值约需 {2}，而本机可用内存只有 {3}。请将这些分数保留为自动设置（如此规模的筛查将不计算它们），或只筛查文件夹的一部分。</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>about {0} s</source>
        <translation>约 {0} 秒</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>about {0} min {1} s</source>
        <translation>约 {0} 分 {1} 秒</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>about {0} h {1} min</source>
        <translation>约 {0} 小时 {1} 分</translation>
    </message>
    <message>
        <location filename="../../neardup_gui/ui/palette.py" line="+66"/>
        <source>shared</source>
        <translation>共有</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Passage found on both sides</source>
        <translation>两侧都有的段落</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>current</source>
        <translation>当前</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>The shared passage N / P moved to</source>
        <translation>按 N / P 跳到的共有段落</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>changed inside match</source>
        <translation>匹配内改动</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Characters that differ inside a matched region</source>
        <translation>匹配区域内不同的字符</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>only here</source>
        <translation>仅此侧</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Text that appears only on this side</source>
        <translation>只在这一侧出现的文字</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>revision flag</source>
        <translation>修订标记</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Evidence of a changed number, date, unit, negation or condition</source>
        <translation>数字、日期、单位、否定或条件发生变化的证据</translation>
    </message>
</context>
<context>
    <name>AboutDialog</name>
    <message>
        <location filename="../../neardup_gui/ui/about_dialog.py" line="+95"/>
        <source>About neardup</source>
        <translation>关于 neardup</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>neardup {0}</source>
        <translation>neardup {0}</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Finds copies, revisions, templates and quotations in folders of texts, shows them side by side for review and exports a signed review workbook.
It only proposes: it never deletes, moves, renames or changes a source file, and never writes inside the source folder.</source>
        <translation>在文本文件夹中找出副本、修订版本、共用模板和引文，左右对照供审核，并导出带签名的审核工作簿。
它只提出建议：从不删除、移动、重命名或修改任何源文件，也从不在源文件夹中写入。</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Licence: MIT. Qt is used under the LGPL through PySide6.</source>
        <translation>许可证：MIT。Qt 通过 PySide6 按 LGPL 使用。</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>Copy versions</source>
        <translation>复制版本信息</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Versions and locations:</source>
        <translation>版本与位置：</translation>
    </message>
</context>
<context>
    <name>AppMenus</name>
    <message>
        <location filename="../../neardup_gui/ui/app_menus.py" line="+96"/>
        <source>&amp;Settings</source>
        <translation>设置(&amp;S)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Preferences…</source>
        <translation>首选项(&amp;P)…</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Follow the system ({0})</source>
        <translation>跟随系统（{0}）</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;User guide</source>
        <translation>使用指南(&amp;U)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Open &amp;log folder</source>
        <translation>打开日志文件夹(&amp;L)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;About neardup</source>
        <translation>关于 neardup(&amp;A)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>About &amp;Qt</source>
        <translation>关于 Qt(&amp;Q)</translation>
    </message>
    <message>
        <location line="+37"/>
        <source>neardup will be shown in {0} from the next start.</source>
        <translation>下次启动时，neardup 将以{0}显示。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <location line="+33"/>
        <source>Log folder: {0} (path copied)</source>
        <translation>日志文件夹：{0}（路径已复制）</translation>
    </message>
</context>
<context>
    <name>ArbitrationDialog</name>
    <message>
        <location filename="../../neardup_gui/ui/history_panel.py" line="+143"/>
        <source>Arbitrate the pair · 仲裁</source>
        <translation>仲裁文本对</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Why this is the final status</source>
        <translation>为什么这是最终状态</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Arbitrate</source>
        <translation>仲裁</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Arbitrator</source>
        <translation>仲裁人</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Final status</source>
        <translation>最终状态</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Reason</source>
        <translation>理由</translation>
    </message>
</context>
<context>
    <name>BoilerplateModel</name>
    <message>
        <location filename="../../neardup_gui/ui/boilerplate_view.py" line="+147"/>
        <source>Documents</source>
        <translation>文档数</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Characters</source>
        <translation>字符数</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Passage</source>
        <translation>段落</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Found in</source>
        <translation>出现于</translation>
    </message>
    <message>
        <location line="+16"/>
        <source> and {0} more</source>
        <translation> 等另外 {0} 篇</translation>
    </message>
</context>
<context>
    <name>BoilerplateView</name>
    <message>
        <location line="+35"/>
        <location line="+51"/>
        <source>Screen a folder to see its recurring passages.</source>
        <translation>筛查一个文件夹后，可在此查看其中反复出现的段落。</translation>
    </message>
    <message>
        <location line="-46"/>
        <source>in at least </source>
        <translation>至少出现在 </translation>
    </message>
    <message>
        <location line="+1"/>
        <source> documents</source>
        <translation> 篇文档中</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>Choose a passage to read it in full.</source>
        <translation>选择一个段落以查看全文。</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>Looking for recurring passages…</source>
        <translation>正在查找反复出现的段落…</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Could not look for recurring passages: {0}</source>
        <translation>无法查找反复出现的段落：{0}</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>{0} passages found in at least {1} of {2} documents.</source>
        <translation>在 {2} 篇文档中，有 {0} 个段落至少出现在 {1} 篇中。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>The folder holds {0} documents: these {1} are a sample spread evenly over it, and the counts are within the sample.</source>
        <translation>文件夹共有 {0} 篇文档：这里检查的 {1} 篇是在全部文档中均匀抽取的样本，篇数按样本计。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>{0} documents that are mostly shared text (copies, versions) are left out, so their articles are not listed as boilerplate.</source>
        <translation>有 {0} 篇文档大部分是共有文字（副本、版本），已不计入，以免把这些文章本身当作套话列出。</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>In {0} documents: {1}</source>
        <translation>出现在 {0} 篇文档中：{1}</translation>
    </message>
</context>
<context>
    <name>CandidateModel</name>
    <message>
        <location filename="../../neardup_gui/ui/candidate_model.py" line="+118"/>
        <source>Left file</source>
        <translation>左侧文件</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Right file</source>
        <translation>右侧文件</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Source / version</source>
        <translation>来源 / 版本</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Jaccard</source>
        <translation>Jaccard</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Cont. left</source>
        <translation>左侧包含度</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Cont. right</source>
        <translation>右侧包含度</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>MinHash est.</source>
        <translation>MinHash 估计</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Flags</source>
        <translation>标记</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Review status</source>
        <translation>审核状态</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>TF-IDF cos</source>
        <translation>TF-IDF 余弦</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>SimHash dist</source>
        <translation>SimHash 距离</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Found by</source>
        <translation>发现方法</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>File name of the left document (its path sorts first)</source>
        <translation>左侧文档的文件名（路径排序靠前的一方）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>File name of the right document</source>
        <translation>右侧文档的文件名</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Source id and version of each side</source>
        <translation>两侧的来源 ID 和版本</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Exact Jaccard similarity of the shingle sets, 0 to 1</source>
        <translation>分片集合的精确 Jaccard 相似度，0 到 1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Share of the left document&apos;s shingles found in the right one</source>
        <translation>左侧文档的分片在右侧中出现的比例</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Share of the right document&apos;s shingles found in the left one</source>
        <translation>右侧文档的分片在左侧中出现的比例</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Share of equal MinHash values (estimate of the Jaccard)</source>
        <translation>相同 MinHash 值的比例（Jaccard 的估计值）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>What the score hides: revisions, templates, quotations, containment</source>
        <translation>分数掩盖的情况：修订、模板、引用、包含</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Review status; a suggestion is shown in grey until someone decides</source>
        <translation>审核状态；在有人作出结论之前，程序建议以灰色显示</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Cosine of the character n-gram TF-IDF vectors, 0 to 1 (— when not computed)</source>
        <translation>字符 n-gram TF-IDF 向量的余弦，0 到 1（未计算时为 —）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Hamming distance of the 64-bit SimHashes, 0 to 64 bits; smaller is closer</source>
        <translation>64 位 SimHash 的汉明距离，0 到 64 位；越小越接近</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Which method(s) proposed the pair</source>
        <translation>由哪种方法提出此文本对</translation>
    </message>
    <message>
        <location line="+221"/>
        <source>{0} (stale: file changed)</source>
        <translation>{0}（已过期：文件已改动）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>suggested: {0}</source>
        <translation>建议：{0}</translation>
    </message>
    <message>
        <location line="+32"/>
        <source>{0}
Changed since the screen: its text is not shown; screen again.</source>
        <translation>{0}
筛查后已改动：不显示其文本；请重新筛查。</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>A decision on this pair was made on a version of a file that has changed since; review the pair again.</source>
        <translation>此文本对的结论是针对文件的旧版本作出的，文件此后已改动；请重新审核。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Suggested by the screen: {0}</source>
        <translation>筛查建议：{0}</translation>
    </message>
</context>
<context>
    <name>CandidateView</name>
    <message>
        <location filename="../../neardup_gui/ui/candidate_view.py" line="+65"/>
        <source>Search file names</source>
        <translation>搜索文件名</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>score ≥ </source>
        <translation>分数 ≥ </translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Show pairs whose Jaccard or containment reaches this value</source>
        <translation>显示 Jaccard 或包含度达到此值的文本对</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Any status</source>
        <translation>任意状态</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Any flags</source>
        <translation>任意标记</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Any revision flag</source>
        <translation>任一修订标记</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Any exact copy</source>
        <translation>任一完全相同</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>No flag</source>
        <translation>无标记</translation>
    </message>
    <message>
        <location line="+153"/>
        <source>{0} of {1} pairs</source>
        <translation>{1} 对中的 {0} 对</translation>
    </message>
    <message>
        <location line="+25"/>
        <source>Columns</source>
        <translation>列</translation>
    </message>
</context>
<context>
    <name>DecisionForm</name>
    <message>
        <location filename="../../neardup_gui/ui/decision_form.py" line="+74"/>
        <source>Status (saved when chosen)</source>
        <translation>状态（选中即保存）</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>Why (free text)</source>
        <translation>原因（自由填写）</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Related document, e.g. the feature an excerpt comes from</source>
        <translation>相关文档，例如节选所出自的长文</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Where the text first appeared</source>
        <translation>文本最早出现的地方</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Author or correspondent</source>
        <translation>作者或通讯员</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>e.g. granted in writing 2024-05-01</source>
        <translation>例如：2024-05-01 书面授权</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Reason</source>
        <translation>理由</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Retained</source>
        <translation>保留</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Related source</source>
        <translation>相关来源</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Original source</source>
        <translation>原始出处</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Author</source>
        <translation>作者</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Reprint permission</source>
        <translation>转载授权</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Reviewer</source>
        <translation>审核人</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Reviewed</source>
        <translation>审核时间</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Save the decision (Ctrl+S)</source>
        <translation>保存结论（Ctrl+S）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Save and next</source>
        <translation>保存并下一对</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Save the decision and go to the next pair (Ctrl+Enter)</source>
        <translation>保存结论并转到下一对（Ctrl+Enter）</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Decision</source>
        <translation>审核结论</translation>
    </message>
    <message>
        <location line="+66"/>
        <location line="+80"/>
        <source>{0} by {1}</source>
        <translation>{0}，{1}</translation>
    </message>
    <message>
        <location line="-78"/>
        <source>not yet (set when you decide)</source>
        <translation>尚未审核（作出结论时记录）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>No pair selected.</source>
        <translation>未选择文本对。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Suggested: {0}</source>
        <translation>建议：{0}</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>No suggestion from the screen.</source>
        <translation>筛查未给出建议。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Flags: {0}</source>
        <translation>标记：{0}</translation>
    </message>
    <message>
        <location line="+68"/>
        <source>Saved: {0}</source>
        <translation>已保存：{0}</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Enter your name as reviewer first.</source>
        <translation>请先填写审核人姓名。</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>Unsaved changes (Ctrl+S saves)</source>
        <translation>有未保存的修改（Ctrl+S 保存）</translation>
    </message>
</context>
<context>
    <name>DiffView</name>
    <message>
        <location filename="../../neardup_gui/ui/diff_view.py" line="+165"/>
        <source>◀ Previous overlap</source>
        <translation>◀ 上一处重合</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Previous shared passage (P)</source>
        <translation>上一处共有段落（P）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Next overlap ▶</source>
        <translation>下一处重合 ▶</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Next shared passage (N)</source>
        <translation>下一处共有段落（N）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Synchronized scrolling</source>
        <translation>同步滚动</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>Legend:</source>
        <translation>图例：</translation>
    </message>
    <message>
        <location line="+69"/>
        <location line="+17"/>
        <source>Left</source>
        <translation>左侧</translation>
    </message>
    <message>
        <location line="-16"/>
        <location line="+17"/>
        <source>Right</source>
        <translation>右侧</translation>
    </message>
    <message>
        <location line="-15"/>
        <source>Select a pair to compare it.</source>
        <translation>选择一个文本对进行比较。</translation>
    </message>
    <message>
        <location line="+25"/>
        <source>Not compared: one side has no text to show.</source>
        <translation>未比较：有一侧没有可显示的文本。</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>Comparing…</source>
        <translation>正在比较…</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>{0}: {1}   ({2} {3}, {4}, {5} characters)</source>
        <translation>{0}：{1}   （{2} {3}，{4}，{5} 个字符）</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>shared passages: {0} · changes inside them: {1}</source>
        <translation>共有段落：{0} · 其中改动：{1}</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Could not compare this pair: {0}</source>
        <translation>无法比较此文本对：{0}</translation>
    </message>
    <message>
        <location line="+46"/>
        <source>overlaps: {0}</source>
        <translation>重合：{0} 处</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>overlap {0} of {1}</source>
        <translation>第 {0} 处重合，共 {1} 处</translation>
    </message>
</context>
<context>
    <name>ErrorDialog</name>
    <message>
        <location filename="../../neardup_gui/app.py" line="+85"/>
        <source>Something went wrong: {0}
The window stays usable; the details say where.</source>
        <translation>出现了问题：{0}
窗口仍可继续使用；详细信息中说明了出错位置。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Log file: {0}</source>
        <translation>日志文件：{0}</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Unexpected error</source>
        <translation>意外错误</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Copy details</source>
        <translation>复制详细信息</translation>
    </message>
</context>
<context>
    <name>EvaluationController</name>
    <message>
        <location filename="../../neardup_gui/ui/evaluation_controller.py" line="+48"/>
        <source>Choose a labels file</source>
        <translation>选择标注文件</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Labelled pairs (*.csv *.xlsx);;All files (*)</source>
        <translation>标注文本对 (*.csv *.xlsx);;所有文件 (*)</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>Nothing to evaluate</source>
        <translation>没有可评估的内容</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Screen a folder with a workspace, or open a workspace, first.</source>
        <translation>请先用一个工作区筛查文件夹，或打开一个工作区。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Wait for the running work to end first.</source>
        <translation>请先等待正在进行的任务结束。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>your review decisions</source>
        <translation>你的审核结论</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Evaluating the screen against {0}…</source>
        <translation>正在以{0}评估筛查结果…</translation>
    </message>
    <message>
        <location line="+23"/>
        <source>The evaluation was cancelled; nothing was written.</source>
        <translation>评估已取消，未写入任何内容。</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Scoring every pair for what the candidate stage missed</source>
        <translation>逐对计分，查找候选阶段漏掉的文本对</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>shingle size {0} of {1}: {2}</source>
        <translation>分片长度 {0}/{1}：{2}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Evaluating the screen against {0}… {1}</source>
        <translation>正在以{0}评估筛查结果… {1}</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Labels: {0}
Results written to: {1}</source>
        <translation>标注：{0}
结果已写入：{1}</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Evaluation finished: {0}</source>
        <translation>评估完成：{0}</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>The evaluation failed: {0}</source>
        <translation>评估失败：{0}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The evaluation failed</source>
        <translation>评估失败</translation>
    </message>
</context>
<context>
    <name>EvaluationPanel</name>
    <message>
        <location filename="../../neardup_gui/ui/evaluation_panel.py" line="+189"/>
        <source>Load labels… · 导入标注</source>
        <translation>导入标注…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Choose a CSV or XLSX of labelled pairs (left, right, label 1/0, reason, split) and evaluate the current screen against it</source>
        <translation>选择一个标注文本对的 CSV 或 XLSX 文件（left、right、label 1/0、reason、split），并据此评估当前筛查结果</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Use my decisions as labels</source>
        <translation>用我的审核结论作为标注</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Evaluate the screen against the review decisions saved in the workspace (merge = duplicate, others = not)</source>
        <translation>以工作区中保存的审核结论评估筛查结果（建议合并 = 重复，其他 = 不重复）</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Also check what LSH missed · 检查 LSH 漏检</source>
        <translation>同时检查 LSH 漏检</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Score every pair of documents exactly (in a larger folder, every pair of a random sample of {0:,} documents) and count, per threshold, the pairs at or above it that the candidate stage did not return: the LSH misses column and lsh_misses.csv. Slower.</source>
        <translation>精确计算每一对文档的得分（文件夹较大时，只计算随机抽取的 {0:,} 篇文档中的每一对），并按每个阈值统计达到阈值却未被候选阶段返回的文本对：见“LSH 漏检”列和 lsh_misses.csv。耗时较长。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Stop the evaluation; nothing is written</source>
        <translation>停止评估，不写入任何内容</translation>
    </message>
    <message>
        <location line="+3"/>
        <location line="+122"/>
        <source>No labels evaluated yet.</source>
        <translation>尚未评估任何标注。</translation>
    </message>
    <message>
        <location line="-112"/>
        <source>Jaccard threshold shown in the charts</source>
        <translation>图表中显示的 Jaccard 阈值</translation>
    </message>
    <message>
        <location line="+10"/>
        <location line="+191"/>
        <source>Candidate scores · 候选得分分布</source>
        <translation>候选得分分布</translation>
    </message>
    <message>
        <location line="-191"/>
        <location line="+5"/>
        <source>Jaccard</source>
        <translation>Jaccard</translation>
    </message>
    <message>
        <location line="-5"/>
        <source>pairs</source>
        <translation>文本对</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>candidate pairs</source>
        <translation>候选文本对</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>labelled 1</source>
        <translation>标注为 1</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>labelled 0</source>
        <translation>标注为 0</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>No candidate pairs</source>
        <translation>没有候选文本对</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Precision / recall · 精确率 / 召回率</source>
        <translation>精确率 / 召回率</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>threshold · 阈值</source>
        <translation>阈值</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>share</source>
        <translation>比例</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Load labels to see precision and recall</source>
        <translation>导入标注后可查看精确率和召回率</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>LSH S-curve · S曲线</source>
        <translation>LSH S 曲线</translation>
    </message>
    <message>
        <location line="+0"/>
        <location line="+212"/>
        <source>P(candidate)</source>
        <translation>P（成为候选）</translation>
    </message>
    <message>
        <location line="-211"/>
        <source>No banding yet</source>
        <translation>尚无分段设置</translation>
    </message>
    <message>
        <location line="+21"/>
        <source>k:</source>
        <translation>k：</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Split:</source>
        <translation>划分：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Threshold:</source>
        <translation>阈值：</translation>
    </message>
    <message>
        <location line="+32"/>
        <source>all labelled pairs</source>
        <translation>全部标注文本对</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>{0} labelled pairs ({1} positive, {2} negative)</source>
        <translation>{0} 个标注文本对（{1} 个正例，{2} 个负例）</translation>
    </message>
    <message>
        <location line="+81"/>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <location line="+36"/>
        <source>threshold {0:g}</source>
        <translation>阈值 {0:g}</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Candidate scores of this screen, k = {0} · 本次筛查候选得分</source>
        <translation>本次筛查候选得分分布，k = {0}</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Candidate scores, k = {0} · 候选得分分布</source>
        <translation>候选得分分布，k = {0}</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>precision · 精确率</source>
        <translation>精确率</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>recall · 召回率</source>
        <translation>召回率</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>candidate recall · 候选召回率</source>
        <translation>候选召回率</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>LSH S-curve, {0} bands × {1} rows · S曲线</source>
        <translation>LSH S 曲线，{0} 段 × {1} 行</translation>
    </message>
</context>
<context>
    <name>ExportDialog</name>
    <message>
        <location filename="../../neardup_gui/ui/export_dialog.py" line="+34"/>
        <source>Export review workbook · 导出审核工作簿</source>
        <translation>导出审核工作簿</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The workbook lists every file, every candidate pair with its review, every decision and arbitration, and a signature sheet whose digest shows later whether anything was edited.</source>
        <translation>工作簿列出每个文件、每个候选文本对及其审核情况、每条结论和仲裁，并附签名表，其摘要值日后可用来检查内容是否被改动过。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Name of the person signing the export</source>
        <translation>签署本次导出的人的姓名</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Signed by</source>
        <translation>签署人</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Language of the headings</source>
        <translation>表头语言</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Save as</source>
        <translation>另存为</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>Save the review workbook</source>
        <translation>保存审核工作簿</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Excel workbook (*.xlsx)</source>
        <translation>Excel 工作簿 (*.xlsx)</translation>
    </message>
</context>
<context>
    <name>FilesModel</name>
    <message>
        <location filename="../../neardup_gui/ui/files_view.py" line="+75"/>
        <source>Path</source>
        <translation>路径</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Why</source>
        <translation>原因</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Encoding</source>
        <translation>编码</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Characters</source>
        <translation>字符数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Version</source>
        <translation>版本</translation>
    </message>
    <message>
        <location line="+76"/>
        <source>{0}

As recorded: {1}</source>
        <translation>{0}

记录原文：{1}</translation>
    </message>
</context>
<context>
    <name>FilesView</name>
    <message>
        <location line="+76"/>
        <source>Only files not compared</source>
        <translation>只看未参与比较的文件</translation>
    </message>
    <message>
        <location line="+33"/>
        <source>No files yet: choose a source folder and screen it.</source>
        <translation>还没有文件：请选择源文件夹并进行筛查。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>{0}: {1}</source>
        <comment>a file status and how many files have it</comment>
        <translation>{0}：{1}</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>; </source>
        <comment>between the file statuses of the summary</comment>
        <translation>；</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{0} files. {1}</source>
        <translation>{0} 个文件。{1}</translation>
    </message>
</context>
<context>
    <name>GroupsModel</name>
    <message>
        <location filename="../../neardup_gui/ui/groups_view.py" line="+73"/>
        <source>Links</source>
        <translation>关联</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Docs</source>
        <translation>文档</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Not direct</source>
        <translation>非直接</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Best J.</source>
        <translation>最高 J</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Group number, largest groups first</source>
        <translation>分组编号，大的分组在前</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Documents in the group</source>
        <translation>分组中的文档数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Candidate pairs joining its documents</source>
        <translation>连接其文档的候选文本对数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Member pairs that are NOT candidates: linked only through another member</source>
        <translation>不是候选对的成员文本对：只经由其他成员相连</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Highest Jaccard of its links</source>
        <translation>其关联中的最高 Jaccard</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Its documents</source>
        <translation>其中的文档</translation>
    </message>
    <message>
        <location line="-7"/>
        <source>Members</source>
        <translation>成员</translation>
    </message>
</context>
<context>
    <name>GroupsView</name>
    <message>
        <location line="+124"/>
        <source>Only groups of 3 or more</source>
        <translation>只看 3 篇及以上的分组</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Show pair</source>
        <translation>显示文本对</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Cut this link (for grouping only)</source>
        <translation>断开此关联（仅影响分组）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The pair stays a candidate with its own decision; it just stops joining the two sides into one group</source>
        <translation>该文本对仍是候选对，结论照旧；只是不再把两侧归入同一分组</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Restore link</source>
        <translation>恢复关联</translation>
    </message>
    <message>
        <location line="+75"/>
        <location line="+37"/>
        <source>Grouping the pairs…</source>
        <translation>正在分组…</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Groups of documents joined by candidate pairs: {0} ({1} shown), {2} with member pairs that are not directly similar. Groups help you find your way; every decision is about one pair.</source>
        <translation>由候选文本对连成的文档分组：{0} 个（显示 {1} 个），其中 {2} 个包含并不直接相似的成员文本对。分组只帮助你浏览；每条结论都只针对一个文本对。</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>No group selected.</source>
        <translation>未选择分组。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{0} documents: {1}</source>
        <translation>{0} 篇文档：{1}</translation>
    </message>
</context>
<context>
    <name>HelpDialog</name>
    <message>
        <location filename="../../neardup_gui/ui/help_dialog.py" line="+41"/>
        <source>neardup user guide</source>
        <translation>neardup 使用指南</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>The user guide is missing from this installation.</source>
        <translation>此安装中缺少使用指南。</translation>
    </message>
</context>
<context>
    <name>HistoryModel</name>
    <message>
        <location filename="../../neardup_gui/ui/history_panel.py" line="-45"/>
        <source>{0} · arbitration by {1}</source>
        <translation>{0} · {1} 仲裁</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Final: {0}</source>
        <translation>最终：{0}</translation>
    </message>
    <message>
        <location line="+3"/>
        <location line="+5"/>
        <source>Reason: {0}</source>
        <translation>理由：{0}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Retained: {0}</source>
        <translation>保留：{0}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Related source: {0}</source>
        <translation>相关来源：{0}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Original source: {0}</source>
        <translation>原始出处：{0}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Author: {0}</source>
        <translation>作者：{0}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Reprint permission: {0}</source>
        <translation>转载授权：{0}</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Made on an earlier version of a file (stale)</source>
        <translation>针对文件的旧版本作出（已过期）</translation>
    </message>
</context>
<context>
    <name>HistoryPanel</name>
    <message>
        <location line="+70"/>
        <source>Arbitrate… · 仲裁</source>
        <translation>仲裁…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Record the final status of a pair whose reviewers disagree</source>
        <translation>为审核人意见不一致的文本对记录最终状态</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>No pair selected.</source>
        <translation>未选择文本对。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Nobody has reviewed this pair yet.</source>
        <translation>还没有人审核过此文本对。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Status: {0} · {1} decision(s) by {2} reviewer(s), {3} arbitration(s)</source>
        <translation>状态：{0} · {2} 位审核人的 {1} 条结论，{3} 次仲裁</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>The reviewers disagree: an arbitration settles the pair.</source>
        <translation>审核人意见不一致：需要仲裁来定夺。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Stale: a file changed after it was reviewed; review the pair again.</source>
        <translation>已过期：审核后文件有改动；请重新审核。</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>Latest opinions:
{0}</source>
        <translation>最新意见：
{0}</translation>
    </message>
</context>
<context>
    <name>LinksModel</name>
    <message>
        <location filename="../../neardup_gui/ui/groups_view.py" line="-215"/>
        <source>Left file</source>
        <translation>左侧文件</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Right file</source>
        <translation>右侧文件</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Jaccard</source>
        <translation>Jaccard</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Relation</source>
        <translation>关系</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Review status</source>
        <translation>审核状态</translation>
    </message>
    <message>
        <location line="+34"/>
        <source>not directly similar (linked via {0})</source>
        <translation>非直接相似（经由 {0} 关联）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>link cut for grouping</source>
        <translation>分组关联已断开</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>candidate pair</source>
        <translation>候选文本对</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../../neardup_gui/ui/main_window.py" line="+92"/>
        <source>Open &amp;recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <location line="+27"/>
        <source>Candidate pairs</source>
        <translation>候选文本对</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Groups</source>
        <translation>分组</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Boilerplate</source>
        <translation>套话</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Files</source>
        <translation>文件</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Parameters</source>
        <translation>参数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Evaluation</source>
        <translation>评估</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Decision</source>
        <translation>结论</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>History</source>
        <translation>历史</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>Source</source>
        <translation>源文件夹</translation>
    </message>
    <message>
        <location line="+61"/>
        <source>Choose the source folder</source>
        <translation>选择源文件夹</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Wait for the running screen to end, or cancel it.</source>
        <translation>请等待正在进行的筛查结束，或取消它。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Not a folder</source>
        <translation>不是文件夹</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>{0} is not a folder.</source>
        <translation>{0} 不是文件夹。</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>Choose the workspace folder</source>
        <translation>选择工作区文件夹</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>Workspace refused</source>
        <translation>工作区被拒绝</translation>
    </message>
    <message>
        <location line="+24"/>
        <source>no folder</source>
        <translation>未选择文件夹</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>neardup — {0}</source>
        <translation>neardup — {0}</translation>
    </message>
    <message>
        <location line="+27"/>
        <source>Wait for the evaluation or the opening workspace first.</source>
        <translation>请先等待评估或工作区打开完成。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>No source folder</source>
        <translation>没有源文件夹</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Choose a source folder first.</source>
        <translation>请先选择源文件夹。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Parameters not valid</source>
        <translation>参数无效</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Deciding resumes when the screen ends.</source>
        <translation>筛查结束后可继续审核。</translation>
    </message>
    <message>
        <location line="+72"/>
        <source>{0} pairs among {1} files ({2} compared) in {3:.1f} s.</source>
        <translation>{1} 个文件（比较了 {2} 个）中找到 {0} 个文本对，用时 {3:.1f} 秒。</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Files changed during the screen</source>
        <translation>筛查期间文件有改动</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{0} file(s) changed while they were read; screen again for current results.</source>
        <translation>有 {0} 个文件在读取期间被改动；请重新筛查以获得最新结果。</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>Writing the normalized texts…</source>
        <translation>正在写入规范化文本…</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Writing the normalized texts: {0:,} of {1:,}</source>
        <translation>正在写入规范化文本：{0:,} / {1:,}</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Normalized texts written to {0}</source>
        <translation>规范化文本已写入 {0}</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>The normalized texts could not be written: {0}</source>
        <translation>无法写入规范化文本：{0}</translation>
    </message>
    <message>
        <location line="+24"/>
        <source>Screen cancelled; the previous results are still shown.</source>
        <translation>筛查已取消；仍显示上一次的结果。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Screen cancelled.</source>
        <translation>筛查已取消。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>The screen failed</source>
        <translation>筛查失败</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Too large to screen this way</source>
        <translation>规模过大，无法按此方式筛查</translation>
    </message>
</context>
<context>
    <name>OverviewController</name>
    <message>
        <location filename="../../neardup_gui/ui/overview_controller.py" line="+134"/>
        <source>That pair is not in the table.</source>
        <translation>表格中没有这个文本对。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Cut links are not remembered while a screen runs.</source>
        <translation>筛查进行期间，断开的关联不会被记住。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>The cut links were not saved</source>
        <translation>断开的关联未能保存</translation>
    </message>
</context>
<context>
    <name>ParamsPanel</name>
    <message>
        <location filename="../../neardup_gui/ui/params_panel.py" line="+66"/>
        <source> characters</source>
        <translation> 个字符</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Shingle length: texts are compared as sets of k-character windows</source>
        <translation>分片长度：文本被切成 k 个字符长的窗口集合再比较</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Number of MinHash permutations (more: finer estimate, slower)</source>
        <translation>MinHash 置换次数（越多估计越精细，但越慢）</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Jaccard (0 to 1) a pair must reach to be kept</source>
        <translation>文本对被保留所需达到的 Jaccard（0 到 1）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Set bands × rows by hand</source>
        <translation>手动设置分段 × 行数</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Also keep pairs where this share of one text lies inside the other (0 = off)</source>
        <translation>一篇文本有这么大比例包含在另一篇中时，也保留该文本对（0 = 关闭）</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>verify every pair</source>
        <translation>逐对核验</translation>
    </message>
    <message>
        <location line="+1"/>
        <source> files</source>
        <translation> 个文件</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>In a group of more than this many files that are near copies of each other (one text filled in or copied many times), only each file&apos;s closest partners and the pairs that keep the group together are verified. 0 verifies every pair.</source>
        <translation>若互为近似副本的文件（同一文本多次填写或复制）成组且超过此数量，只核验每个文件最接近的几个文件以及把整组连在一起的配对。0 表示逐对核验。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>NFKC (full-width → half-width)</source>
        <translation>NFKC（全角 → 半角）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>casefold</source>
        <translation>统一大小写</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>lower case</source>
        <translation>转为小写</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>keep case</source>
        <translation>保留大小写</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>letters and digits only</source>
        <translation>只保留文字和数字</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>drop whitespace, keep punctuation</source>
        <translation>去掉空白，保留标点</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>drop whitespace only</source>
        <translation>只去掉空白</translation>
    </message>
    <message>
        <location line="+4"/>
        <location line="+3"/>
        <source>Glob patterns on relative paths, separated by spaces</source>
        <translation>作用于相对路径的通配符规则，以空格分隔</translation>
    </message>
    <message>
        <location line="-1"/>
        <source>e.g. drafts/* *.bak</source>
        <translation>例如 drafts/* *.bak</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Defaults</source>
        <translation>恢复默认</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Show the default parameters (chosen in Preferences)</source>
        <translation>恢复默认参数（在“首选项”中设置）</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Method</source>
        <translation>方法</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>k</source>
        <translation>k</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Threshold</source>
        <translation>阈值</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Containment</source>
        <translation>包含度</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Large groups over</source>
        <translation>大组上限</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>MinHash LSH</source>
        <translation>MinHash LSH</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>num_perm</source>
        <translation>置换次数</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Bands × rows</source>
        <translation>分段 × 行数</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Normalization</source>
        <translation>标准化</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Case</source>
        <translation>大小写</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Keep</source>
        <translation>保留</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Files</source>
        <translation>文件</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Include</source>
        <translation>包含</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Exclude</source>
        <translation>排除</translation>
    </message>
    <message>
        <location line="+108"/>
        <source>{0} bands × {1} rows. Pairs at Jaccard {2:.1f} are found with probability {3}; at the threshold {4:.2f}, {5}; at Jaccard 0.3, {6}.</source>
        <translation>{0} 段 × {1} 行。Jaccard 为 {2:.1f} 的文本对被找到的概率为 {3}；在阈值 {4:.2f} 处为 {5}；Jaccard 为 0.3 时为 {6}。</translation>
    </message>
</context>
<context>
    <name>PreferencesDialog</name>
    <message>
        <location filename="../../neardup_gui/ui/preferences_dialog.py" line="+103"/>
        <source>Preferences</source>
        <translation>首选项</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Follow the system ({0})</source>
        <translation>跟随系统（{0}）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>A new language is used from the next start of neardup.</source>
        <translation>新语言将在下次启动 neardup 时生效。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Name recorded with every decision</source>
        <translation>随每条结论记录的姓名</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>New workspaces are made in this folder, one per source folder. Empty: the default shown.</source>
        <translation>新工作区建在此文件夹中，每个源文件夹一个。留空则使用所示的默认位置。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Reviewer name</source>
        <translation>审核人姓名</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Workspaces folder</source>
        <translation>工作区文件夹</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Outputs and review sessions go there, never into the source folder. A folder that already has a workspace keeps it.</source>
        <translation>输出文件和审核会话都存放在那里，绝不写入源文件夹。已有工作区的文件夹继续使用原工作区。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Write the normalized text of every document (normalized/)</source>
        <translation>为每篇文档写出规范化文本（normalized/）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>One file per document in the workspace. Creating many small files can take longer than the screen itself; the results are the same without them.</source>
        <translation>在工作区中每篇文档一个文件。创建大量小文件可能比筛查本身还慢；不写这些文件，结果完全相同。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Read and hash every file on each screen</source>
        <translation>每次筛查都重新读取并计算每个文件的哈希</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Off: a file whose size, modification and change times are the same as at the last screen into the workspace is not opened again, and keeps the SHA-256 recorded then. On: every file is opened and its SHA-256 computed again (slower on large folders).</source>
        <translation>关闭时：大小、修改时间和状态变更时间与上次筛查到该工作区时相同的文件不再打开，沿用当时记录的 SHA-256。开启时：每个文件都重新打开并计算 SHA-256（大文件夹会更慢）。</translation>
    </message>
    <message>
        <location line="+11"/>
        <source> pt</source>
        <translation> 磅</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Built-in ({0} pt)</source>
        <translation>内置（{0} 磅）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Highlight colours</source>
        <translation>高亮颜色</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Colour for “{0}”</source>
        <translation>“{0}”的颜色</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Colour-blind-safe defaults</source>
        <translation>色盲友好的默认配色</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Light tints of the Okabe–Ito palette, distinguishable with common colour blindness</source>
        <translation>Okabe–Ito 配色的浅色调，常见色觉障碍者也能区分</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Font size</source>
        <translation>字号</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Parameters a fresh start uses; saving them also loads them into the Parameters tab.</source>
        <translation>全新启动时使用的参数；保存后也会载入“参数”页。</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>General</source>
        <translation>常规</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Text panes</source>
        <translation>文本窗格</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Default parameters</source>
        <translation>默认参数</translation>
    </message>
    <message>
        <location line="+43"/>
        <source>Folder for new workspaces</source>
        <translation>新工作区所在的文件夹</translation>
    </message>
    <message>
        <location line="+50"/>
        <source>Default parameters not valid: {0}</source>
        <translation>默认参数无效：{0}</translation>
    </message>
</context>
<context>
    <name>ProgressPanel</name>
    <message>
        <location filename="../../neardup_gui/ui/progress_panel.py" line="+42"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Stop the screen; the previous results stay</source>
        <translation>停止筛查；保留上一次的结果</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>Starting…</source>
        <translation>正在开始…</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>{0} ({1} found)</source>
        <translation>{0}（已找到 {1} 个）</translation>
    </message>
    <message>
        <location line="-36"/>
        <location line="+45"/>
        <source>{0} left</source>
        <translation>剩余{0}</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
</context>
<context>
    <name>ReviewController</name>
    <message>
        <location filename="../../neardup_gui/ui/review_controller.py" line="+128"/>
        <source>No workspace: decisions are kept until the window closes.</source>
        <translation>没有工作区：结论只保留到窗口关闭为止。</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Decisions cannot be saved</source>
        <translation>无法保存结论</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The review session could not be opened; decisions are kept only until the window closes.</source>
        <translation>无法打开审核会话；结论只保留到窗口关闭为止。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Decisions are not being saved to disk.</source>
        <translation>结论没有保存到磁盘。</translation>
    </message>
    <message>
        <location line="+54"/>
        <source>Changed since the screen, so its text is not shown: {0}. Screen again to compare.</source>
        <translation>筛查后已改动，因此不显示其文本：{0}。请重新筛查后再比较。</translation>
    </message>
    <message>
        <location line="+29"/>
        <source>The reviewers disagree: History ▸ Arbitrate… records the final status.</source>
        <translation>审核人意见不一致：请在 历史 ▸ 仲裁… 中记录最终状态。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Deciding is paused while a screen runs.</source>
        <translation>筛查进行期间暂停审核。</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>The decision was not saved</source>
        <translation>结论未能保存</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Arbitrating is paused while a screen runs.</source>
        <translation>筛查进行期间暂停仲裁。</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>The arbitration was not saved</source>
        <translation>仲裁未能保存</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Arbitrated: {0}</source>
        <translation>已仲裁：{0}</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>That was the last pair shown.</source>
        <translation>这已是所显示的最后一个文本对。</translation>
    </message>
</context>
<context>
    <name>RunNotes</name>
    <message>
        <location filename="../../neardup_gui/ui/run_notes.py" line="+71"/>
        <source>About this run: {0}</source>
        <translation>本次筛查说明：{0}</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>{0} The comparison scope left out {1} proposed pairs.</source>
        <translation>{0}比较范围排除了 {1} 个候选文本对。</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Comparison scope: {0}. {1} proposed pairs were left out by it and not compared.</source>
        <translation>比较范围为{0}，有 {1} 个候选文本对因此被排除，未作比较。</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>{0} LSH buckets held more than {1} documents and were paired around their first member only (likely boilerplate).</source>
        <translation>有 {0} 个 LSH 桶包含超过 {1} 篇文档，只与各桶的第一篇配对（多半是套话模板）。</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>{0} group(s) of more than {1} files are near copies of each other ({2} files); {3} of the pairs among them were not verified: each file kept its closest partners and the links that keep its group together (Groups tab).</source>
        <translation>{0} 组互为近似副本的文件各超过 {1} 个（共 {2} 个文件）；其中 {3} 对未逐一核验：每个文件保留与之最接近的几个文件，以及把整组连在一起的配对（见“分组”标签页）。</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>TF-IDF cosine and SimHash distance were not computed for every pair ({0} characters is above the automatic limit of {1}); choose the TF-IDF or SimHash method to get them.</source>
        <translation>未给每个文本对计算 TF-IDF 余弦和 SimHash 距离（共 {0} 个字符，超过自动计算上限 {1}）；如需这些分数，请选择 TF-IDF 或 SimHash 方法。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>TF-IDF cosine and SimHash distance are not computed by the Dask engine.</source>
        <translation>Dask 引擎不计算 TF-IDF 余弦和 SimHash 距离。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{0} source file(s) changed during the run; their results may be out of date.</source>
        <translation>筛查期间有 {0} 个源文件发生改动，相关结果可能已过时。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Fewer than two usable documents: nothing was compared.</source>
        <translation>可用文档不足两篇，未作任何比较。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>{0} files unchanged since the last screen (same size, times and inode) were not opened; they keep the SHA-256 recorded then.</source>
        <translation>{0} 个文件自上次筛查以来未变（大小、时间和 inode 相同），未重新打开，沿用当时记录的 SHA-256。</translation>
    </message>
</context>
<context>
    <name>ScopeBox</name>
    <message>
        <location filename="../../neardup_gui/ui/scope_box.py" line="+31"/>
        <source>Comparison scope</source>
        <translation>比较范围</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>Documents are compared only with documents that have the same value of this field: source_id (the top folder, or the sidecar&apos;s source), version, or a column of the sidecar CSV</source>
        <translation>只比较该字段取值相同的文档：source_id（顶层文件夹，或附带 CSV 中的来源）、version，或附带 CSV 中的任一列</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>e.g. 历史稿件/*</source>
        <translation>例如 历史稿件/*</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Glob patterns on relative paths naming the reference archive (or the first set), separated by spaces</source>
        <translation>指明参考档案（或第一组）的相对路径通配符规则，以空格分隔</translation>
    </message>
    <message>
        <location line="+2"/>
        <location line="+53"/>
        <source>Reference</source>
        <translation>参考档案</translation>
    </message>
    <message>
        <location line="-50"/>
        <source>Field</source>
        <translation>字段</translation>
    </message>
    <message>
        <location line="+36"/>
        <source>Give the patterns naming the reference archive (or the first set), e.g. 历史稿件/*.</source>
        <translation>请填写指明参考档案（或第一组）的匹配规则，例如 历史稿件/*。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Give the field whose value groups the documents, e.g. source_id.</source>
        <translation>请填写用于给文档分组的字段，例如 source_id。</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>First set</source>
        <translation>第一组</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Pairs the scope leaves out are counted after the screen.</source>
        <translation>筛查结束后会统计被比较范围排除的文本对数量。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Every pair of documents may be compared.</source>
        <translation>任意两篇文档都可以比较。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Documents are compared only with documents of the same field value.</source>
        <translation>文档只与字段取值相同的文档比较。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>New documents are compared with each other and with the archive; the archive is not compared with itself.</source>
        <translation>新稿件之间互相比较，也与参考档案比较；档案内部不互相比较。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Only pairs with one document in each set: the first set against the rest.</source>
        <translation>只比较分属两组的文档对：第一组对照其余文档。</translation>
    </message>
</context>
<context>
    <name>SourceBar</name>
    <message>
        <location filename="../../neardup_gui/ui/source_bar.py" line="+24"/>
        <source>Choose a folder of texts, or drop one on the window</source>
        <translation>选择一个文本文件夹，或把文件夹拖到窗口上</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The source folder is only read, never changed</source>
        <translation>源文件夹只读取，从不改动</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Outputs and the review session are written here, never in the source</source>
        <translation>输出文件和审核会话写在这里，绝不写入源文件夹</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Choose…</source>
        <translation>选择…</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Recent</source>
        <translation>最近</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Change…</source>
        <translation>更改…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Screen</source>
        <translation>筛查</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Find near-duplicate pairs in the source folder (F5)</source>
        <translation>在源文件夹中查找近似重复的文本对（F5）</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Source (read-only)</source>
        <translation>源文件夹（只读）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Workspace</source>
        <translation>工作区</translation>
    </message>
</context>
<context>
    <name>SweepTableModel</name>
    <message>
        <location filename="../../neardup_gui/ui/evaluation_panel.py" line="-362"/>
        <source>k</source>
        <translation>k</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Threshold · 阈值</source>
        <translation>阈值</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Split</source>
        <translation>划分</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Candidates · 候选数</source>
        <translation>候选数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>TP</source>
        <translation>TP</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>FP</source>
        <translation>FP</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>FN</source>
        <translation>FN</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Precision · 精确率</source>
        <translation>精确率</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Recall · 召回率</source>
        <translation>召回率</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Candidate recall · 候选召回率</source>
        <translation>候选召回率</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>LSH misses</source>
        <translation>LSH 漏检</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Shingle length in characters; each k has its own shingles, signatures and candidates</source>
        <translation>分片的字符长度；每个 k 都有各自的分片、签名和候选</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Jaccard threshold a pair must reach to count as predicted</source>
        <translation>文本对被计为“预测为重复”所需达到的 Jaccard 阈值</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Labels split (tune / holdout) or source family; &apos;all&apos; counts every labelled pair</source>
        <translation>标注的划分（tune / holdout）或来源系列；“all”计入全部标注文本对</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Candidate-stage pairs of the whole folder with Jaccard at or above the threshold</source>
        <translation>整个文件夹在候选阶段 Jaccard 不低于阈值的文本对</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Labelled 1 and predicted</source>
        <translation>标注为 1 且被预测</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Labelled 0 but predicted</source>
        <translation>标注为 0 但被预测</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Labelled 1 but not predicted (below the threshold, or never returned by LSH)</source>
        <translation>标注为 1 但未被预测（低于阈值，或 LSH 未返回）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>TP / (TP + FP); empty when nothing is predicted</source>
        <translation>TP / (TP + FP)；没有任何预测时为空</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>TP / (TP + FN); a positive LSH never returned counts as missed</source>
        <translation>TP / (TP + FN)；LSH 未返回的正例计为漏检</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Labelled positives the candidate stage returned at all, before any threshold</source>
        <translation>在应用阈值之前，候选阶段返回了的标注正例所占比例</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Pairs at or above the threshold that LSH did not return (miss audit)</source>
        <translation>达到阈值但 LSH 未返回的文本对（漏检审计）</translation>
    </message>
    <message>
        <location line="+56"/>
        <source>Empty: the denominator is zero (nothing predicted, or no labelled positive). Not 0, not 1.</source>
        <translation>空白：分母为零（没有任何预测，或没有标注正例）。既不是 0，也不是 1。</translation>
    </message>
</context>
<context>
    <name>WindowMenus</name>
    <message>
        <location filename="../../neardup_gui/ui/window_menus.py" line="+32"/>
        <source>&amp;Open folder…</source>
        <translation>打开文件夹(&amp;O)…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Open wor&amp;kspace…</source>
        <translation>打开工作区(&amp;K)…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Choose &amp;workspace…</source>
        <translation>选择工作区(&amp;W)…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Screen</source>
        <translation>筛查(&amp;S)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Cancel screen</source>
        <translation>取消筛查(&amp;C)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>&amp;Export review workbook…</source>
        <translation>导出审核工作簿(&amp;E)…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Export &amp;CSV…</source>
        <translation>导出 CSV(&amp;C)…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>&amp;Next overlap</source>
        <translation>下一处重合(&amp;N)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Previous overlap</source>
        <translation>上一处重合(&amp;P)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Arbitrate…</source>
        <translation>仲裁(&amp;A)…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Evaluate against a &amp;labels file…</source>
        <translation>用标注文件评估(&amp;L)…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Evaluate against my &amp;decisions</source>
        <translation>用我的结论评估(&amp;D)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Recen&amp;t workspaces</source>
        <translation>最近的工作区(&amp;T)</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Candidate &amp;columns</source>
        <translation>候选列表的列(&amp;C)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Review</source>
        <translation>审核(&amp;R)</translation>
    </message>
    <message>
        <location line="+34"/>
        <location line="+14"/>
        <source>(none yet)</source>
        <translation>（暂无）</translation>
    </message>
    <message>
        <location line="-3"/>
        <source>This folder no longer holds a review session</source>
        <translation>该文件夹中已没有审核会话</translation>
    </message>
</context>
<context>
    <name>WorkspaceController</name>
    <message>
        <location filename="../../neardup_gui/ui/workspace_controller.py" line="+115"/>
        <source>Open a workspace (a folder with session.sqlite)</source>
        <translation>打开工作区（含有 session.sqlite 的文件夹）</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Wait for the running work to end first.</source>
        <translation>请先等待正在进行的任务结束。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Not a workspace</source>
        <translation>不是工作区</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>{0} holds no review session (session.sqlite).</source>
        <translation>{0} 中没有审核会话（session.sqlite）。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Opening the workspace {0}…</source>
        <translation>正在打开工作区 {0}…</translation>
    </message>
    <message>
        <location line="+37"/>
        <source>Opened the workspace {0}: {1} pairs among {2} files, screened {3}.</source>
        <translation>已打开工作区 {0}：{2} 个文件中有 {1} 个文本对，筛查于 {3}。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Files changed since the screen</source>
        <translation>筛查后文件有改动</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{0} file(s) changed since the screen (or cannot be read). Their pairs are still listed, marked in red, without their text; screen again to compare them.</source>
        <translation>有 {0} 个文件在筛查后被改动（或无法读取）。相关文本对仍会列出并以红色标出，但不显示其文本；请重新筛查后再比较。</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>The workspace could not be opened</source>
        <translation>无法打开工作区</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Nothing to export</source>
        <translation>没有可导出的内容</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Screen a folder with a workspace, or open a workspace, first.</source>
        <translation>请先用一个工作区筛查文件夹，或打开一个工作区。</translation>
    </message>
    <message>
        <location line="+24"/>
        <source>Choose a folder for the CSV files</source>
        <translation>选择存放 CSV 文件的文件夹</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Checking the source files before the export…</source>
        <translation>导出前正在核对源文件…</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>Source files changed</source>
        <translation>源文件有改动</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{0} source file(s) changed since the screen. The export describes the files as they were screened; decisions on changed files are marked stale. Export anyway?</source>
        <translation>有 {0} 个源文件在筛查后被改动。导出内容描述的是筛查时的文件；涉及改动文件的结论会标为已过期。仍要导出吗？</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Export anyway</source>
        <translation>仍然导出</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Export cancelled.</source>
        <translation>导出已取消。</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Exporting…</source>
        <translation>正在导出…</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Exporting: writing the review workbook, {0} of {1} rows…</source>
        <translation>正在导出：写入审核工作簿，第 {0} / {1} 行…</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Exporting: checking the written workbook, {0} of {1} rows…</source>
        <translation>正在导出：核对已写入的工作簿，第 {0} / {1} 行…</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Review workbook written: {0}</source>
        <translation>审核工作簿已写入：{0}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Signed by {0} at {1}</source>
        <translation>由 {0} 于 {1} 签署</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Digest (SHA-256): {0}</source>
        <translation>摘要（SHA-256）：{0}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{0} files, {1} candidate pairs, {2} reviewed; {3} decisions, {4} arbitrations; {5} awaiting arbitration, {6} stale</source>
        <translation>{0} 个文件，{1} 个候选文本对，已审核 {2} 对；{3} 条结论，{4} 次仲裁；{5} 对待仲裁，{6} 对已过期</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>The {0} table goes on over {1} more sheet(s), {2}: a sheet holds at most {3} rows.</source>
        <translation>{0} 表超出单个工作表的容量，续写在另外 {1} 个工作表中（{2}）：每个工作表最多 {3} 行。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{0}: {1} rows</source>
        <translation>{0}：{1} 行</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>{0} file(s) could not be read again; their excerpts are given as offsets.</source>
        <translation>有 {0} 个文件无法再次读取；其摘录以偏移量给出。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Export finished</source>
        <translation>导出完成</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Export finished.</source>
        <translation>导出完成。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>The export failed</source>
        <translation>导出失败</translation>
    </message>
</context>
<context>
    <name>file message</name>
    <message>
        <location filename="../../neardup_gui/ui/file_messages.py" line="+71"/>
        <source>PNG image</source>
        <translation>PNG 图片</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>JPEG image</source>
        <translation>JPEG 图片</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>GIF image</source>
        <translation>GIF 图片</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>PDF document</source>
        <translation>PDF 文档</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>ZIP archive (also .docx, .xlsx, .epub)</source>
        <translation>ZIP 压缩包（.docx、.xlsx、.epub 也是这种格式）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>ZIP archive (empty)</source>
        <translation>空的 ZIP 压缩包</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>OLE2 file (old .doc/.xls)</source>
        <translation>OLE2 文件（旧版 .doc/.xls）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>gzip archive</source>
        <translation>gzip 压缩包</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>7-Zip archive</source>
        <translation>7-Zip 压缩包</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>RAR archive</source>
        <translation>RAR 压缩包</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>ELF executable</source>
        <translation>ELF 可执行程序</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>SQLite database</source>
        <translation>SQLite 数据库</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>contains NUL bytes</source>
        <translation>含有 NUL 字节</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>{0} bytes</source>
        <translation>{0} 字节</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>folder could not be listed: {0}</source>
        <translation>无法列出文件夹内容：{0}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>could not be examined: {0}</source>
        <translation>无法获取文件信息：{0}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>hidden folder, not searched</source>
        <translation>隐藏文件夹，未查找其中的文件</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>hidden file</source>
        <translation>隐藏文件</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>symbolic link to {0}, outside the source folder; not followed</source>
        <translation>符号链接，指向源文件夹以外的 {0}，未按链接读取</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>symlink loop (the link leads back to itself)</source>
        <translation>符号链接循环（链接指回自身）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>symlink loop</source>
        <translation>符号链接循环</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>broken symbolic link (to {0})</source>
        <translation>失效的符号链接（指向 {0}）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>folder excluded by pattern {0}</source>
        <translation>文件夹被排除规则 {0} 排除</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>excluded by pattern {0}</source>
        <translation>被排除规则 {0} 排除</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>not matched by the include patterns {0}</source>
        <translation>不符合包含规则 {0}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>not a regular file (device, pipe or socket)</source>
        <translation>不是普通文件（设备、管道或套接字）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>listed file not found</source>
        <translation>文件清单中列出的文件不存在</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>could not be opened: {0}</source>
        <translation>无法打开：{0}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>could not be read: {0}</source>
        <translation>无法读取：{0}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{0}, larger than the limit of {1}; not read</source>
        <translation>{0}，超过 {1} 的上限，未读取</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>grew while being read; larger than the limit of {0}; not read</source>
        <translation>读取期间文件变大，超过 {0} 的上限，未读取</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>empty file (0 bytes)</source>
        <translation>空文件（0 字节）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>binary data: {0}</source>
        <translation>二进制数据：{0}</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>not valid UTF-8 ({0}), and GB18030, Big5 and UTF-16 give no plausible text</source>
        <translation>不是有效的 UTF-8（{0}），按 GB18030、Big5 和 UTF-16 解码也得不到可信的文字</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>byte {0} at byte {1} of {2}</source>
        <translation>共 {2} 字节，第 {1} 字节为 {0}</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>only a byte-order mark</source>
        <translation>只有字节顺序标记（BOM）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>only whitespace ({0} characters)</source>
        <translation>只有空白（{0} 个字符）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>file name is not valid UTF-8 (bytes shown as \xNN)</source>
        <translation>文件名不是有效的 UTF-8（无法识别的字节显示为 \xNN）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>not a valid .docx file: its part {0} is missing</source>
        <translation>不是有效的 .docx 文件：缺少组成部分 {0}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>not a valid .docx file: it has no main document part</source>
        <translation>不是有效的 .docx 文件：没有主文档部分</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>not a valid .docx file: its main part has no content type</source>
        <translation>不是有效的 .docx 文件：主文档部分没有内容类型</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>not a valid .docx file: its main part is {0}</source>
        <translation>不是有效的 .docx 文件：主文档部分的类型是 {0}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>not a valid .docx file: it is a {0}</source>
        <translation>不是有效的 .docx 文件：它其实是 {0}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>not a valid .docx file: it is not a ZIP package</source>
        <translation>不是有效的 .docx 文件：不是 ZIP 包</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>unpacks to {0} MB, over the limit of {1} MB for a .docx file; not read</source>
        <translation>解压后为 {0} MB，超过 .docx 文件 {1} MB 的上限，未读取</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the document contains no text</source>
        <translation>文档中没有文字</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>declared charset {0} does not decode the page</source>
        <translation>网页声明的字符集 {0} 无法解码网页内容</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>declared charset {0} is unknown</source>
        <translation>网页声明的字符集 {0} 无法识别</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>read as {0}</source>
        <translation>已按 {0} 读取</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the page contains only whitespace</source>
        <translation>网页只有空白</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the page could not be parsed: {0}</source>
        <translation>无法解析网页：{0}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the page has no main text (only markup or navigation)</source>
        <translation>网页没有正文（只有标记或导航）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>not a valid PDF file: it is a {0}</source>
        <translation>不是有效的 PDF 文件：它其实是 {0}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>not a valid PDF file: it has no PDF header</source>
        <translation>不是有效的 PDF 文件：没有 PDF 文件头</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>not a valid PDF file: {0}</source>
        <translation>不是有效的 PDF 文件：{0}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the PDF is protected by a password; its text cannot be read</source>
        <translation>PDF 设有密码保护，无法读取其中的文字</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the PDF has no pages</source>
        <translation>PDF 没有任何页面</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>not a readable PDF: none of its {0} page(s) has text</source>
        <translation>无法读取的 PDF：全部 {0} 页都没有文字</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>no text layer: none of its {0} page(s) has text (a scan or images?); text recognition (OCR) is not done</source>
        <translation>没有文字层：全部 {0} 页都没有文字（是扫描件或图片？）；本程序不做文字识别（OCR）</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>the text layer does not map to readable characters (fonts without a Unicode map)</source>
        <translation>文字层无法转换为可读的字符（字体缺少 Unicode 映射）</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>{0} of {1} pages have no text (page {2})</source>
        <translation>{1} 页中有 {0} 页没有文字（第 {2} 页）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{0} and {1} more</source>
        <translation>{0} 页及另外 {1}</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>page {0}: {1}</source>
        <translation>第 {0} 页：{1}</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>the {0} extractor needs {1}: {2}</source>
        <translation>提取 {0} 文件的文字需要 {1}：{2}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>not a valid .{0} file: {1}</source>
        <translation>不是有效的 .{0} 文件：{1}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>no text</source>
        <translation>没有文字</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>no text (null in the table)</source>
        <translation>没有文字（表中为空值）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>empty text</source>
        <translation>文字为空</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>normalized text shorter than k={0} characters; not compared</source>
        <translation>标准化后的文字短于分片长度 k={0} 个字符，未参与比较</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>missing</source>
        <translation>文件已不存在</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>cannot be examined: {0}</source>
        <translation>无法获取文件信息：{0}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>cannot be read: {0}</source>
        <translation>无法读取：{0}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>size {0} -&gt; {1}</source>
        <translation>大小由 {0} 字节变为 {1} 字节</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>modification time changed</source>
        <translation>修改时间已改变</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>content changed (SHA-256)</source>
        <translation>内容已改变（SHA-256 不同）</translation>
    </message>
    <message>
        <location line="+33"/>
        <source>; </source>
        <comment>between the parts of a file&apos;s message</comment>
        <translation>；</translation>
    </message>
</context>
<context>
    <name>neardup</name>
    <message>
        <location filename="../../neardup_gui/ui/labels.py" line="-233"/>
        <source>Pending · 待审</source>
        <translation>待审</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Keep both · 保留双方</source>
        <translation>保留双方</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Suggest merged entry · 建议合并检索入口</source>
        <translation>建议合并检索入口</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Public quotation · 公共引用</source>
        <translation>公共引用</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Valid revision · 有效修订</source>
        <translation>有效修订</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Needs arbitration · 待仲裁</source>
        <translation>待仲裁</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>same text</source>
        <translation>文本相同</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>identical files</source>
        <translation>文件完全相同</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>one inside the other</source>
        <translation>一篇包含另一篇</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>number changed</source>
        <translation>数字变化</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>date changed</source>
        <translation>日期变化</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>unit changed</source>
        <translation>单位变化</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>negation changed</source>
        <translation>否定变化</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>condition changed</source>
        <translation>条件变化</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>template only</source>
        <translation>仅模板相同</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>quotation</source>
        <translation>引用</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>read</source>
        <translation>已读取</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>empty</source>
        <translation>空文件</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>binary, skipped</source>
        <translation>二进制文件，已跳过</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>cannot be decoded or extracted</source>
        <translation>无法解码或提取文字</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>unreadable</source>
        <translation>无法读取</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>too large</source>
        <translation>文件过大</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>too short to compare</source>
        <translation>过短，无法比较</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>link, skipped</source>
        <translation>链接，已跳过</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>excluded by pattern</source>
        <translation>被排除规则排除</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>no text layer (scanned PDF)</source>
        <translation>无文字层（扫描版 PDF）</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>MinHash + LSH (Jaccard)</source>
        <translation>MinHash + LSH（Jaccard）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Exact copies only</source>
        <translation>仅完全相同的副本</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Exact Jaccard, all pairs</source>
        <translation>精确 Jaccard（两两比较）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Character TF-IDF cosine</source>
        <translation>字符 TF-IDF 余弦</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+10"/>
        <source>SimHash</source>
        <translation>SimHash</translation>
    </message>
    <message>
        <location line="-9"/>
        <source>Containment</source>
        <translation>包含度</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>MinHash</source>
        <translation>MinHash</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>exact copy</source>
        <translation>完全相同</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Jaccard</source>
        <translation>Jaccard</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>TF-IDF</source>
        <translation>TF-IDF</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>containment</source>
        <translation>包含度</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Listing files</source>
        <translation>正在列出文件</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Reading files</source>
        <translation>正在读取文件</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Normalizing</source>
        <translation>正在标准化</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Shingling and signing</source>
        <translation>正在分片并计算签名</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Finding candidates</source>
        <translation>正在查找候选</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Verifying pairs</source>
        <translation>正在核验文本对</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Checking revisions and templates</source>
        <translation>正在检查修订和模板</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Checking the source files again</source>
        <translation>正在复核源文件</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Writing the results</source>
        <translation>正在写出结果</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>All pairs</source>
        <translation>全部文档对</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Only within the same value of a field</source>
        <translation>仅在同一字段值内比较</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>New documents against a reference archive</source>
        <translation>新稿件对照参考档案</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Only across two sets</source>
        <translation>仅比较跨两组的文档对</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Not chosen</source>
        <translation>未选择</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Left</source>
        <translation>左侧</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Right</source>
        <translation>右侧</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Both</source>
        <translation>两者</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>, </source>
        <comment>between the items of a short list (flags, methods)</comment>
        <translation>、</translation>
    </message>
</context>
</TS>
