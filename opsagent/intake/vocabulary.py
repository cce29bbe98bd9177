"""Domain words intake recognises that no backend lists: Azure regions, platform names, abbreviations.

Region codes follow Azure's naming conventions (``adf-prod-neu`` runs in North Europe), which is
how "the North Europe factory" finds its factory. The filter words map the user's phrases onto
the values the tools accept (owned by ``tools/servicenow_filters.py``).
"""

from __future__ import annotations

REGIONS: dict[str, tuple[str, ...]] = {
    "West Europe": ("west europe", "westeurope", "weu", "netherlands", "amsterdam"),
    "North Europe": ("north europe", "northeurope", "neu", "ireland", "dublin"),
    "East US": ("east us", "eastus", "eus"),
    "East US 2": ("east us 2", "eastus2", "eus2"),
    "West US": ("west us", "westus", "wus"),
    "UK South": ("uk south", "uksouth", "uks", "london"),
    "Germany West Central": ("germany west central", "germanywestcentral", "gwc"),
    "France Central": ("france central", "francecentral", "frc", "paris"),
    "Sweden Central": ("sweden central", "swedencentral", "sdc"),
    "Frankfurt": ("frankfurt",),
    "eu-west-1": ("eu-west-1",),
}
"""Region → the words people write for it (the short code first after the names). Frankfurt and
eu-west-1 stay as written: Snowflake and Databricks also run on AWS, whose regions are named so."""
REGION_CODES: dict[str, str] = {"West Europe": "weu", "North Europe": "neu", "East US": "eus", "East US 2": "eus2",
                                "West US": "wus", "UK South": "uks", "Germany West Central": "gwc",
                                "France Central": "frc", "Sweden Central": "sdc"}
PLATFORMS: dict[str, tuple[str, ...]] = {
    "Databricks": ("databricks", "dbx"),
    "Snowflake": ("snowflake",),
    "Azure": ("azure",),
}
PLATFORM_WORDS = frozenset(word for words in PLATFORMS.values() for word in words)
"""Every word that names a platform ("dbx" too)."""
SERVICE_ALIASES: dict[str, str] = {"adf": "Data Factory", "kv": "Key Vault", "sql mi": "SQL Managed Instance",
                                   "sqlmi": "SQL Managed Instance", "adls": "Storage", "blob storage": "Storage",
                                   "eventhub": "Event Hubs", "event hub": "Event Hubs"}
"""Abbreviations of Azure services → the name the health source uses."""

ACTIONS: dict[str, tuple[str, ...]] = {
    "acknowledge": ("acknowledge", "ack", "acknowlege"),
    "assign": ("assign", "reassign", "re-assign", "hand over", "handover", "route", "transfer"),
    "page": ("page", "call out", "callout", "escalate", "notify", "wake up", "ping", "alert"),
    "rerun": ("rerun", "re-run", "retrigger", "re-trigger", "restart", "retry", "trigger", "kick off", "rekick",
              "run", "start", "resume", "resubmit"),
    "stop": ("stop", "kill", "abort", "pause", "suspend", "disable", "terminate", "cancel"),
    "resize": ("scale", "scale up", "scale out", "resize", "upsize", "downsize", "increase", "bump"),
    "approve": ("approve", "authorise", "authorize", "sign off"),
    "reject": ("reject", "decline", "deny"),
    "create": ("create", "open", "raise", "file", "log", "submit", "make"),
    "close": ("close", "resolve", "mark"),
    "update": ("update", "edit", "change", "set", "add", "post", "write", "comment", "note", "tag", "prioritise",
               "prioritize", "downgrade", "upgrade", "reschedule", "postpone", "move"),
    "deploy": ("deploy", "roll back", "rollback", "revert", "redeploy", "patch"),
    "remove": ("delete", "remove", "purge", "clear", "drop", "reset", "fix", "repair", "reboot"),
    "buy": ("buy", "purchase", "provision", "order"),
}
"""Operations people ask OpsAgent to perform (a verb as a command): every one is a write the read-only
tools cannot do. Several double as nouns or adjectives ("open incidents", "run status", "change
requests"): those count only when the words after them say they are commands (``intent.py``)."""
AMBIGUOUS_VERBS = frozenset({"run", "start", "open", "log", "file", "change", "set", "add", "note", "order", "make",
                             "mark", "route", "alert", "page", "tag", "clear", "drop", "patch", "upgrade", "fix",
                             "post", "write", "comment", "increase", "transfer", "resume", "move"})
"""Verbs that are commands only before an object (an id, a name, "the", "a", "it"…)."""
COMMAND_LEADS = ("please", "pls", "plz", "kindly", "can you", "could you", "would you", "will you", "can u", "could u",
                 "go ahead and", "i want you to", "i need you to", "i'd like you to", "you should", "lets", "let's",
                 "just", "now", "then", "also", "and", "quickly", "asap",
                 "ok", "okay", "alright", "all right", "right", "cool", "great", "sure", "yes", "yeah")  # "ok ack the P1"
"""Words that may come before a command verb."""
GREETINGS = ("hi", "hello", "hey", "hiya", "yo", "howdy", "hallo", "good morning", "good afternoon", "good evening",
             "morning", "evening", "gm", "greetings", "sup", "hi there", "hey there")
HELP_WORDS = ("help", "what can you do", "what can you help with", "what can you help me with", "what do you do",
              "how do i use you", "how do i use this", "how does this work", "what are you", "who are you",
              "what is opsagent", "what's opsagent", "capabilities", "commands", "examples", "example questions",
              "what should i ask", "what can i ask", "what can i ask you", "getting started", "usage", "menu",
              "what do you know", "how can you help", "what can you answer")
THANKS_WORDS = ("thanks", "thank you", "thx", "ty", "tyvm", "cheers", "much appreciated", "appreciated", "great",
                "perfect", "awesome", "cool", "nice", "ok", "okay", "got it", "that's all", "thats all", "that is all",
                "all good", "bye", "goodbye", "see you", "later", "for today", "for now", "that's it", "thats it",
                "that helps", "helpful", "brilliant", "lovely", "sweet", "👍", "🙏")
ADDRESSEE = ("opsagent", "ops agent", "bot", "buddy", "mate", "team", "folks", "there", "you", "again")
DOMAIN_WORDS = frozenset(
    "eta sla oncall on-call shift handover briefing runbook alert alerts page paged escalation fire burning "
    "outage outages sev severity priority prio p1 p2 p3 p4 p5 ci cis cmdb servicenow snow itsm cab rca postmortem "
    "adf factory factories databricks dbx snowflake azure shir integration runtime warehouse cluster clusters notebook "
    "notebooks region regions workspace sla breach latency error errors failure failures failed failing fail fails "
    "broken broke down degraded healthy health status fix fixed approve approved approval deploy deployment rollout "
    "upgrade patch maintenance window prod production prd staging env environment environments system systems "
    "service services infra infrastructure dwh datalake lake sync export import ingest report dashboard api portal "
    "vm vms server servers network vpn firewall dns storage database databases db sql job jobs on-prem onprem "
    "gateway endpoint endpoints monitoring alerting incident-free uptime downtime sre ops devops".split()
)
"""Words that tie a message to operations even when it names no record: "what's the ETA?", "is it down?"."""
STOPWORDS = frozenset(
    "a an the and or but if then else of to in on at by for from with without within into onto over under about "
    "above below after before during since until till between among per via as than so too very just only also "
    "still already yet ever never again all any some no not none nothing every each both either neither more most "
    "less least few many much other another such own same i me my mine we us our ours you your yours he him his she "
    "her it its they them their theirs this that these those there here who whom whose which what when where why how "
    "is are was were be been being am do does did doing done have has had having can could will would shall should "
    "may might must need needs needed ok okay please pls plz thanks thank hi hello hey right now currently rn atm "
    "today yesterday tomorrow tonight morning evening night week weeks day days hour hours minute minutes month "
    "ago last next past recent recently latest new old up out off get got give show tell list find check see look "
    "know let lets let's want like make go going gone anything anyone anybody something someone somebody everything "
    "everyone one ones thing things stuff lot lots bit kind sort way yes yeah yep nope e.g. eg etc vs via "
    "is there are there any there's theres what's whats it's its i'm im don't dont didn't didnt doesn't doesnt "
    "isn't isnt aren't arent wasn't wasnt weren't werent haven't havent hasn't hasnt won't wont can't cant "
    "wrong happening happened going on again".split()
)
"""Function words: they never make a question unreadable (``QuestionAnalysis.unplaced`` leaves them out)."""
REFERENCES = ("it", "its", "they", "them", "that one", "this one", "the same", "the fix", "the eta")
"""Words that point at something said before: with no earlier turn and nothing named, the message is
vague ("is it fixed?") and is asked back rather than guessed. "that / this / the" + a record noun
("that pipeline", "the change") point back too (``intent.py``)."""
OFF_TOPIC_REQUESTS = ("joke", "jokes", "poem", "song", "recipe", "translate", "translation", "horoscope", "lottery")
"""Requests for something else entirely ("translate: the pipeline is down", "a joke about databases"):
declined whatever they mention, unless they name a record."""
OFF_TOPIC = ("weather", "forecast", "football", "soccer", "movie", "stock price", "share price", "stock market",
             "market cap", "capital of", "password", "printer", "laptop", "wifi", "wi-fi", "headset", "keyboard",
             "mouse", "my email", "my account", "my phone", "outlook", "vpn client")
"""Topics outside operations (general knowledge, the IT help desk): declined unless the message asks
about records ("open incidents about password resets" is a ticket search)."""
