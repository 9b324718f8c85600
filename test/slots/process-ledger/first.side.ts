import { ledgerSide } from './side';

ledgerSide('first');
