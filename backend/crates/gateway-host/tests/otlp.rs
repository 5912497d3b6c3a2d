mod export_client;
