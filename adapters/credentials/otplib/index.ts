export { OtplibTotp } from './otplib.adapter.js';
