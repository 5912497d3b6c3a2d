mod device;
mod openai;
mod xai;
