"""Cue and stakes words of the languages the corpus has besides English, written for this project as facts about
words (which words prohibit, oblige, gate on approval, or name something at stake), not copied from any list.

Languages: German, French, Spanish, Portuguese, Italian, Russian, Turkish, Vietnamese (words, matched per word and
word pair like the English families), and Chinese, Japanese, Korean (substrings: Chinese and Japanese are not
segmented into words, and Korean attaches particles and endings to its stems, so a stem is matched inside a word).
Each entry extends the risk family of the same name (:mod:`aac.classifiers.risk`), and the section entries extend
the heading families, so a rule in Portuguese or under a "禁止事项" heading crosses with force and stakes as an
English one does. Lower-case alternations; ``\b`` only around Latin/Cyrillic words.
"""

from __future__ import annotations

_CJK_PROHIBIT = ("不要|禁止|绝不|不得|严禁|切勿|勿|不可|不能|不允许|不准|决不|"
                 "してはいけない|してはならない|てはならない|ないでください|ないこと|しないこと|厳禁|決して|絶対に|"
                 "금지|하지\\s?마|마십시오|마세요|말\\s?것|절대|불가|안\\s?됩니다|안\\s?된다|하지\\s?않")

# Chinese and Japanese words of the preference family (``pref``), matched on the raw text (not segmented into words).
PREF_CJK = "优先|尽量|尽可能|避免|推荐|建议|最好|倾向于|推奨|避ける|避けて|なるべく|できるだけ|望ましい|好ましい"

TEXT: dict[str, str] = {
    "prohibit": (
        r"\b(?:niemals|nie|keine[nrms]?|keinesfalls|verboten|untersagt|unzulässig|"  # de
        r"jamais|interdit\w*|défendu\w*|proscrit\w*|"  # fr
        r"nunca|jamás|prohibid\w*|proibid\w*|vedad\w*|"  # es, pt
        r"(?:no|não|nao|non|ne)\s+(?:dev\w*|deb\w*|pod\w*|pued\w*|faç\w*|fac\w*|hag\w*|us\w*|utiliz\w*|alter\w*|"
        r"modifi\w*|remov\w*|apag\w*|borr\w*|elimin\w*|exclu\w*|envi\w*|execut\w*|ejecut\w*|commit\w*|cri\w*|"
        r"cre\w*|expon\w*|inclu\w*|toqu\w*|toc\w*|edit\w*|sub\w*|push\w*)|"  # negated verbs, es/pt/it/fr
        r"mai|vietat\w*|proibit\w*|"  # it
        r"никогда|нельзя|запрещ\w*|недопустим\w*|не\s+(?:долж\w*|\w+(?:ай|яй|ей|уй|йте|ите|ь|ьте|и)|\w+ся)|"  # ru
        r"asla|yasak\w*|\w+(?:mayın|meyin|mayınız|meyiniz)|"  # tr
        r"cấm|đừng|không\s+được|nghiêm\s+cấm|tuyệt\s+đối)\b|" + _CJK_PROHIBIT),
    "must": (
        r"\b(?:muss|müssen|immer|stets|zwingend|erforderlich|pflicht\w*|ausschließlich|nur|unbedingt|"  # de
        r"doit|doivent|toujours|obligatoire\w*|impérati\w*|uniquement|exig\w*|"  # fr
        r"debe|deben|siempre|obligatori\w*|únicamente|sólo|requerid\w*|"  # es
        r"deve|devem|sempre|obrigatóri\w*|somente|apenas|exclusivamente|"  # pt
        r"devono|obbligatori\w*|soltanto|"  # it
        r"должен|должна|должно|должны|обязательн\w*|всегда|только|необходимо|требуется|"  # ru
        r"zorunlu\w*|mutlaka|daima|sadece|yalnızca|gerekir|"  # tr
        r"phải|bắt\s+buộc|luôn)\b|"  # vi
        r"必须|务必|一定要|只能|仅限|始终|强制|必ず|必須|なければならない|なければなりません|常に|のみ|厳守|"
        r"반드시|필수|항상|해야|오직|엄수"),
    "gate": (
        r"\b(?:genehmig\w*|freigabe\w*|zustimmung|erlaubnis|rückfrage\w*|"  # de
        r"autoris\w*|approbation|approuv\w*|consentement|"  # fr
        r"aprobaci\w*|aprob\w*|autoriza\w*|permiso\w*|consentimiento|"  # es
        r"aprovaç\w*|aprov\w*|permissão|permissões|consentimento|"  # pt
        r"approvazion\w*|autorizza\w*|permesso|consenso|"  # it
        r"одобрен\w*|разрешени\w*|согласовани\w*|подтвержд\w*|"  # ru
        r"onay\w*|izin\w*|"  # tr
        r"phê\s+duyệt|cho\s+phép|xác\s+nhận)\b|"  # vi
        r"批准|审批|许可|确认|授权|同意|承認|許可|確認|了承|승인|허가|확인|동의|결정"),
    "stop": r"\b(?:stopp\w*|abbrechen|sofort|arrête\w*|detén\w*|interromp\w*|остановит?\w*|прекрат\w*|dừng)\b"
            r"|停止|中止|中断|立即|중단|멈추|즉시",
    "secret": (
        r"\b(?:geheim\w*|passw[oö]rt\w*|kennw[oö]rt\w*|zugangsdaten|schlüssel\w*|"  # de
        r"mot\s+de\s+passe|mots\s+de\s+passe|identifiants|clés?|"  # fr
        r"contraseña\w*|secreto\w*|credencial\w*|claves?|"  # es
        r"senhas?|segredos?|chaves?|"  # pt
        r"credenziali|chiav\w*|segret\w*|"  # it
        r"парол\w*|секрет\w*|ключ\w*|токен\w*|"  # ru
        r"şifre\w*|parola\w*|gizli|"  # tr
        r"mật\s+khẩu|bí\s+mật)\b|"  # vi
        r"密钥|秘钥|密码|口令|凭证|令牌|秘密鍵|認証情報|シークレット|비밀번호|암호|시크릿|토큰|자격\s?증명"),
    "destroy": (
        r"\b(?:lösch\w*|überschreib\w*|zerstör\w*|unwiderruflich\w*|"  # de
        r"supprim\w*|effac\w*|écras\w*|détrui\w*|irréversible\w*|"  # fr
        r"borr\w*|elimin\w*|sobrescrib\w*|destru\w*|irreversible\w*|"  # es
        r"apag\w*|exclu[ií]\w*|sobrescrev\w*|irreversível|"  # pt
        r"cancell\w*|sovrascriv\w*|distrugg\w*|"  # it
        r"удал\w*|стира\w*|стер\w*|перезапис\w*|уничтож\w*|очища\w*|очист\w*|"  # ru
        r"sil(?:me|in|mek|meyin|mayın)\w*|"  # tr
        r"xóa|xoá|ghi\s+đè)\b|"  # vi
        r"删除|删掉|清空|覆盖|销毁|破坏|不可逆|削除|消去|上書き|破棄|破壊|初期化|삭제|제거|덮어쓰|초기화|파괴"),
    "vcs": r"提交|推送|合并|分支|コミット|プッシュ|マージ|ブランチ|커밋|푸시|브랜치|병합",
    "prod": (
        r"\b(?:produktion\w*|producción|produção|producao|produzione|продакшн\w*|продакшен\w*|боев\w*|"
        r"продуктив\w*|canlı|üretim)\b|生产环境|线上|正式环境|生产|数据库|本番|データベース|운영|프로덕션|데이터베이스|배포"),
    "security": (
        r"\b(?:sicherheit\w*|sécurité|seguridad|segurança|sicurezza|безопасност\w*|уязвим\w*|güvenlik\w*|"
        r"bảo\s+mật)\b|安全|漏洞|注入|权限|セキュリティ|脆弱性|権限|보안|취약|권한"),
    "privacy": (
        r"\b(?:datenschutz\w*|personenbezogen\w*|données\s+personnelles|confidentialit\w*|datos\s+personales|"
        r"privacidad|dados\s+pessoais|privacidade|confidencia\w*|персональн\w*|конфиденциальн\w*|kişisel)\b"
        r"|隐私|个人信息|敏感|個人情報|機密|개인정보|민감"),
    "money": (
        r"\b(?:zahlung\w*|geld\w*|paiement\w*|argent|pago\w*|dinero|pagamento\w*|dinheiro|cobran\w*|"
        r"платеж\w*|платёж\w*|деньг\w*|ödeme\w*)\b|支付|付款|资金|费用|金额|決済|支払|料金|課金|결제|비용|요금|가격"),
    "legal": (
        r"\b(?:lizenz\w*|gesetz\w*|licence\w*|licencia\w*|licença\w*|лиценз\w*|закон\w*|lisans\w*)\b"
        r"|许可证|法律|合规|版权|ライセンス|法令|著作権|라이선스|법률|규정|헌법"),
    "harm": (
        r"\b(?:gefährlich\w*|gefahr\w*|kritisch\w*|dangereu\w*|critique\w*|peligro\w*|crític\w*|perigo\w*|"
        r"pericol\w*|опасн\w*|критич\w*|tehlike\w*|kritik|nguy\s+hiểm)\b|危险|严重|危険|重大|致命|위험|치명|중대"),
}

# Soft guidance: preferring, avoiding, "ideally", "where possible" (a Preference, not a rule with stakes)
PREF = (
    r"\b(?:bevorzug\w*|vorzugsweise|möglichst|vermeide\w*|idealerweise|lieber|"  # de
    r"préfér\w*|de\s+préférence|évite[rz]?|idéalement|plutôt\s+que|si\s+possible|"  # fr
    r"preferi\w*|prefer[ae]\w*|evit[ae]\w*|idealmente|en\s+lugar\s+de|em\s+vez\s+de|en\s+vez\s+de|"  # es pt
    r"se\s+possível|si\s+es\s+posible|piuttosto\s+che|preferibilmente|"  # pt es it
    r"предпочт\w*|избега\w*|желательно|по\s+возможности|вместо|"  # ru
    r"tercih\w*|kaçın\w*|mümkünse|yerine|ưu\s+tiên|tránh|thay\s+vì|nếu\s+có\s+thể)\b"  # tr vi
    r"|권장|선호|지양|가급적|되도록|피하|피할|" + PREF_CJK)

SECTION: dict[str, str] = {
    "safe": (
        r"\b(?:hard\s+stops?|red\s?lines?|do\s+not\s+violate|don'?ts|must\s+never|never\s+do|off[-\s]limits|"
        r"sicherheit\w*|verbot\w*|verboten|niemals|tabu\w*|"  # de
        r"interdit\w*|interdictions?|sécurité|à\s+ne\s+pas\s+faire|jamais|"  # fr
        r"prohibid\w*|prohibiciones|seguridad|no\s+hacer|nunca|"  # es
        r"proibid\w*|proibições|segurança|não\s+faça|não\s+fazer|"  # pt
        r"vietat\w*|divieti|sicurezza|"  # it
        r"запрещ\w*|запреты|никогда|безопасност\w*|нельзя|"  # ru
        r"yasak\w*|güvenlik|asla|"  # tr
        r"cấm|bảo\s+mật|không\s+được)\b"
        r"|禁止|严禁|红线|底线|注意事项|不要|厳禁|してはいけない|禁止事項|セキュリティ|금지|보안|절대|주의"),
    "rules": (
        r"\b(?:invariants?|regeln?|pflicht\w*|vorgaben|einschränkung\w*|règles?|obligatoire\w*|contraintes?|"
        r"reglas?|obligatori\w*|restricciones|regras?|obrigatóri\w*|restrições|regole|obblig\w*|"
        r"правила?|обязательн\w*|ограничени\w*|kurallar?\w*|zorunlu\w*|quy\s+tắc|bắt\s+buộc)\b"
        r"|规则|规范|必须|约束|限制|要求|ルール|規則|必須|制約|制限|厳守|규칙|필수|제약|원칙|불변"),
    # The type stage's heading families: a heading that says "style", "setup", "architecture" or "changelog" in
    # another language types the items under it as an English one does (an item under "更新日志" or "Sesión
    # anterior" is an event, under "命名规范" a preference).
    "style": (
        r"\b(?:stil\w*|konventionen|namensgebung|benennung|formatierung|richtlinien|codequalität|"  # de
        r"nommage|formatage|bonnes\s+pratiques|lignes\s+directrices|qualité\s+du\s+code|"  # fr
        r"estilo|convenciones|convenções|nomenclatura|formato|formatação|buenas\s+prácticas|boas\s+práticas|"  # es pt
        r"pautas|diretrizes|stile|convenzioni|formattazione|linee\s+guida|"  # es pt it
        r"стиль|соглашени\w*|именовани\w*|форматировани\w*|оформлени\w*|"  # ru
        r"adlandırma|biçimlendirme|phong\s+cách|quy\s+ước|đặt\s+tên|định\s+dạng)\b"  # tr vi
        r"|风格|命名|格式|注释|代码质量|最佳实践|编码约定|スタイル|命名規則|コーディング規約|書式|フォーマット|"
        r"스타일|컨벤션|명명|네이밍|포맷|코드\s?품질|주석|톤"),
    "proc": (
        r"\b(?:einrichtung|installation|befehle|skripte|arbeitsablauf|bereitstellung|entwicklung|schritte|"  # de
        r"ausführ\w*|testen|commandes|flux\s+de\s+travail|déploiement|développement|étapes|démarrage|"  # fr
        r"instalación|instalação|configuración|configuração|comandos|flujo\s+de\s+trabajo|fluxo\s+de\s+trabalho|"
        r"despliegue|implantação|desarrollo|desenvolvimento|pasos|passos|etapas|pruebas|testes|ejecución|execução|"
        r"installazione|comandi|flusso\s+di\s+lavoro|sviluppo|"  # it
        r"установк\w*|настройк\w*|команды|сборк\w*|развертывани\w*|развёртывани\w*|разработк\w*|шаги|"  # ru
        r"тестировани\w*|запуск\w*|kurulum|komutlar|geliştirme|adımlar|"  # tr
        r"cài\s+đặt|lệnh|quy\s+trình|triển\s+khai|phát\s+triển|các\s+bước|kiểm\s+thử)\b"  # vi
        r"|安装|配置|命令|脚本|工作流|流程|部署|开发流程|步骤|测试|构建|运行|检查清单|インストール|セットアップ|"
        r"コマンド|スクリプト|手順|ワークフロー|デプロイ|テスト|ビルド|実行|설치|설정|명령|스크립트|워크플로|절차|"
        r"배포|테스트|빌드|실행|체크리스트"),
    "belief": (
        r"\b(?:architektur|überblick|übersicht|struktur|projekt|kontext|verzeichnis\w*|komponenten|hintergrund|"  # de
        r"aperçu|vue\s+d'ensemble|projet|contexte|répertoire|composants|"  # fr
        r"arquitectura|arquitetura|resumen|visión\s+general|visão\s+geral|estructura|estrutura|proyecto|projeto|"
        r"contexto|directorio|diretório|módulos|componentes|tecnologías?|tecnologias?|identidad|"  # es pt
        r"architettura|panoramica|struttura|progetto|contesto|"  # it
        r"архитектур\w*|обзор|структур\w*|проект\w*|контекст|модули|компоненты|стек|"  # ru
        r"mimari|genel\s+bakış|yapı|proje|kiến\s+trúc|tổng\s+quan|cấu\s+trúc|dự\s+án|ngữ\s+cảnh)\b"  # tr vi
        r"|架构|概述|概览|简介|结构|项目|目录|模块|组件|技术栈|背景|アーキテクチャ|概要|構成|構造|プロジェクト|"
        r"ディレクトリ|モジュール|技術スタック|背景|아키텍처|개요|구조|프로젝트|디렉토리|디렉터리|모듈|컴포넌트|"
        r"기술\s?스택|배경|소개"),
    "episodic": (
        r"\b(?:stand|fortschritt|verlauf|änderung\w*|erledigt|abgeschlossen|sitzung|notizen|meilensteine?|"  # de
        r"statut|état|avancement|historique|journal|changements|terminé|en\s+cours|jalons?|"  # fr
        r"estado|progreso|progresso|avance|historial|histórico|cambios|alterações|mudanças|registro|sesión|sessão|"
        r"anterior|actual|atual|notas|hitos?|marcos|fase|pendientes?|pendentes?|completad\w*|concluíd\w*|"  # es pt
        r"stato|cronologia|storico|modifiche|sessione|"  # it
        r"статус|состояни\w*|прогресс|истори\w*|изменени\w*|журнал|сесси\w*|заметки|этап\w*|фаза|"  # ru
        r"текущ\w*|выполнен\w*|завершен\w*|durum|ilerleme|geçmiş|değişiklik\w*|oturum|notlar|aşama|"  # ru tr
        r"trạng\s+thái|tiến\s+độ|lịch\s+sử|thay\s+đổi|phiên|ghi\s+chú|giai\s+đoạn|hoàn\s+thành)\b"  # vi
        r"|\b(?:19|20)\d\d-\d\d\b"  # a dated heading ("2025-10-13", "Stage 1 — complete (2026-04-09)")
        r"|状态|进度|进展|历史|更新日志|变更|日志|记录|会话|笔记|里程碑|阶段|已完成|已实现|待办|路线图|当前|未来|"
        r"ステータス|状況|進捗|履歴|ログ|記録|セッション|メモ|ノート|マイルストーン|フェーズ|完了|現在|今後|"
        r"상태|진행|현황|이력|변경|기록|로그|세션|노트|메모|마일스톤|완료|현재|향후|미해결|과제|로드맵|갱신"),
}
# Words that mark a text as an event or a status (done, implemented, last time), for the type stage's
# ``temporal`` cue: "已完成", "完了済み", "완료", "concluído" tie an item to a moment as "completed" does.
TEMPORAL = (r"\b(?:erledigt|abgeschlossen|gestern|terminé|hier|completad[oa]s?|terminad[oa]s?|concluíd[oa]s?|"
            r"implementad[oa]s?|ayer|ontem|завершен\w*|выполнен\w*|вчера|tamamland\w*|dün|hoàn\s+thành|hôm\s+qua)\b"
            r"|완료|구현됨|어제|지난주")
TEMPORAL_CJK = "已完成|已实现|已修复|已上线|完成了|昨天|上周|完了済み|実装済み|対応済み|昨日|先週"  # matched on the raw text
