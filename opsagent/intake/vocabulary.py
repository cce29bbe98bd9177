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
SERVICE_ALIASES: dict[str, str] = {"adf": "Data Factory", "kv": "Key Vault", "sql mi": "SQL Managed Instance",
                                   "sqlmi": "SQL Managed Instance", "adls": "Storage", "blob storage": "Storage",
                                   "eventhub": "Event Hubs", "event hub": "Event Hubs"}
"""Abbreviations of Azure services → the name the health source uses."""
